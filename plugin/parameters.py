"""Plugin parameters: the announcement Argo CD shows, and parsing of ``ARGOCD_APP_PARAMETERS``.

One table serves both, so `plugin.yaml`'s static list and the parser cannot drift (a test checks it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.errors import UsageError

ParamValue = str | list[str] | dict[str, str]


@dataclass(frozen=True)
class ParamSpec:
    name: str
    title: str
    tooltip: str
    collection: str = "string"  # string | array | map
    default: str | None = None

    def announcement(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "title": self.title, "tooltip": self.tooltip}
        if self.collection != "string":
            out["collectionType"] = self.collection
        elif self.default is not None:
            out["string"] = self.default
        return out


SPECS: tuple[ParamSpec, ...] = (
    ParamSpec("allowEmpty", "Allow empty output", "Render nothing without failing (true/false)", default="false"),
    ParamSpec(
        "hpaAwareReplicas",
        "HPA-aware replicas",
        "Drop spec.replicas from workloads an HPA or KEDA ScaledObject scales",
        default="true",
    ),
    ParamSpec(
        "onRemoved",
        "Removed APIs",
        "What to do with objects whose API has no replacement: fail|drop|keep",
        default="fail",
    ),
    ParamSpec(
        "rewriteApis",
        "Rewrite deprecated APIs",
        "Rewrite API versions the target cluster no longer serves (true/false)",
        default="true",
    ),
    ParamSpec(
        "validate",
        "Validate schemas",
        "Validate the final objects against the target version",
        default="false",
    ),
    ParamSpec("additionalVersions", "Additional API rules", "Path (in the app folder) of extra deprecation rules"),
    ParamSpec("releaseName", "Helm release name", "Defaults to the application name"),
    ParamSpec("valueFiles", "Helm value files", "Value files relative to the chart folder", collection="array"),
    ParamSpec("values", "Helm values", "Values set with --set (key: value)", collection="map"),
    ParamSpec(
        "enableHelm",
        "Kustomize --enable-helm",
        "Let kustomize inflate helmCharts (true/false)",
        default="false",
    ),
)
SPEC_BY_NAME = {s.name: s for s in SPECS}


def parse_parameters(raw: str | None, *, where: str = "ARGOCD_APP_PARAMETERS") -> dict[str, ParamValue]:
    """Parse Argo CD's JSON parameter list. Absent, empty or ``null`` mean no parameters."""
    if raw is None or not raw.strip() or raw.strip() == "null":
        return {}
    try:
        items = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from exc
    if items is None:
        return {}
    if not isinstance(items, list):
        raise UsageError(f"{where}: expected a JSON array of parameters, got {type(items).__name__}")
    out: dict[str, ParamValue] = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise UsageError(f"{where}[{i}]: each parameter needs a string 'name'")
        name = item["name"]
        if isinstance(item.get("map"), dict):
            out[name] = {str(k): str(v) for k, v in item["map"].items()}
        elif isinstance(item.get("array"), list):
            out[name] = [str(v) for v in item["array"]]
        elif "string" in item:
            out[name] = str(item["string"])
        else:
            raise UsageError(f"{where}[{i}] ({name}): needs one of 'string', 'array' or 'map'")
    return out


def as_bool(params: dict[str, ParamValue], name: str) -> bool:
    value = params.get(name, SPEC_BY_NAME[name].default or "false")
    if not isinstance(value, str) or value.strip().lower() not in ("true", "false"):
        raise UsageError(f"parameter {name}: expected true or false, got {value!r}")
    return value.strip().lower() == "true"


def as_str(params: dict[str, ParamValue], name: str) -> str | None:
    value = params.get(name, SPEC_BY_NAME[name].default if name in SPEC_BY_NAME else None)
    if value is None:
        return None
    if not isinstance(value, str):
        raise UsageError(f"parameter {name}: expected a string")
    return value


def as_list(params: dict[str, ParamValue], name: str) -> list[str]:
    value = params.get(name, [])
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if not isinstance(value, list):
        raise UsageError(f"parameter {name}: expected an array")
    return value


def as_map(params: dict[str, ParamValue], name: str) -> dict[str, str]:
    value = params.get(name, {})
    if not isinstance(value, dict):
        raise UsageError(f"parameter {name}: expected a map")
    return value
