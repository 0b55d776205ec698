"""Plugin parameters: the table Argo CD's UI announces, the wire format of ``ARGOCD_APP_PARAMETERS``, and
the typed ``Parameters`` every later step reads.

One table serves the announcement and the parser, so `plugin.yaml`'s static list and the defaults cannot
drift (a test checks it). Values are checked here, once, before anything renders: a bad parameter is one
``parameter NAME: expected ...`` line, however many steps would have read it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved

ParamValue = str | list[str] | dict[str, str]


# Typed readers: each takes a raw value (or the table's default) and names the rule it breaks.


def _flag(name: str, value: ParamValue | None) -> bool:
    if not isinstance(value, str) or value.strip().lower() not in ("true", "false"):
        raise UsageError(f"parameter {name}: expected true or false, got {value!r}")
    return value.strip().lower() == "true"


def _text(name: str, value: ParamValue | None) -> str | None:
    """A string parameter; empty means unset."""
    if value is not None and not isinstance(value, str):
        raise UsageError(f"parameter {name}: expected a string")
    return value or None


def _array(name: str, value: ParamValue | None) -> tuple[str, ...]:
    """An array; a plain string is read as a comma-separated list (the UI's single-line form)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if not isinstance(value, list):
        raise UsageError(f"parameter {name}: expected an array")
    return tuple(value)


def _map(name: str, value: ParamValue | None) -> tuple[tuple[str, str], ...]:
    """A map, as (key, value) pairs sorted by key (so the output does not depend on input order)."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise UsageError(f"parameter {name}: expected a map")
    return tuple(sorted(value.items()))


def _on_removed(name: str, value: ParamValue | None) -> OnRemoved:
    return OnRemoved.parse(_text(name, value) or OnRemoved.FAIL.value, where=f"parameter {name}")


Reader = Callable[[str, ParamValue | None], Any]


@dataclass(frozen=True)
class ParamSpec:
    name: str
    title: str
    tooltip: str
    #: turns the raw value (or ``default``) into the typed one, or raises naming the rule
    read: Reader
    default: str | None = None

    @property
    def field(self) -> str:
        """The ``Parameters`` attribute: ``hpaAwareReplicas`` -> ``hpa_aware_replicas``."""
        return "".join(f"_{c.lower()}" if c.isupper() else c for c in self.name)

    @property
    def collection(self) -> str:
        return "array" if self.read is _array else "map" if self.read is _map else "string"

    def announcement(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "title": self.title, "tooltip": self.tooltip}
        if self.collection != "string":
            out["collectionType"] = self.collection
        elif self.default is not None:
            out["string"] = self.default
        return out


_HPA_TIP = "Drop spec.replicas from workloads an HPA or KEDA ScaledObject scales"
_REMOVED_TIP = "What to do with objects whose API has no replacement: fail|drop|keep"
_REWRITE_TIP = "Rewrite API versions the target cluster no longer serves (true/false)"
_RULES_TIP = "Path (in the app folder) of extra deprecation rules"
_KUSTOMIZE_HELM_TIP = "Let kustomize inflate helmCharts (true/false)"

#: in the order the UI lists them
SPECS: tuple[ParamSpec, ...] = (
    ParamSpec("allowEmpty", "Allow empty output", "Render nothing without failing (true/false)", _flag, "false"),
    ParamSpec("hpaAwareReplicas", "HPA-aware replicas", _HPA_TIP, _flag, "true"),
    ParamSpec("onRemoved", "Removed APIs", _REMOVED_TIP, _on_removed, "fail"),
    ParamSpec("rewriteApis", "Rewrite deprecated APIs", _REWRITE_TIP, _flag, "true"),
    ParamSpec("validate", "Validate schemas", "Validate the final objects against the target version", _flag, "false"),
    ParamSpec("additionalVersions", "Additional API rules", _RULES_TIP, _text),
    ParamSpec("releaseName", "Helm release name", "Defaults to the application name", _text),
    ParamSpec("valueFiles", "Helm value files", "Value files relative to the chart folder", _array),
    ParamSpec("values", "Helm values", "Values set with --set (key: value)", _map),
    ParamSpec("enableHelm", "Kustomize --enable-helm", _KUSTOMIZE_HELM_TIP, _flag, "false"),
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


@dataclass(frozen=True)
class Parameters:
    """Every parameter the plugin understands, typed; built once by ``parse`` and read-only after."""

    allow_empty: bool
    hpa_aware_replicas: bool
    on_removed: OnRemoved
    rewrite_apis: bool
    validate: bool
    #: a path inside the app folder, as given (the rewrite step resolves and loads it)
    additional_versions: str | None
    release_name: str | None
    value_files: tuple[str, ...]
    #: Helm ``--set`` values, sorted by key
    values: tuple[tuple[str, str], ...]
    enable_helm: bool

    @classmethod
    def parse(cls, raw: Mapping[str, ParamValue]) -> Parameters:
        """Typed values from the raw ones (the table's default where one is absent); the first bad one
        raises. Names the plugin does not know are left to templates."""
        return cls(**{s.field: s.read(s.name, raw.get(s.name, s.default)) for s in SPECS})
