"""Plugin parameters: the table Argo CD's UI announces, the wire format of ``ARGOCD_APP_PARAMETERS``, and
the typed ``Parameters`` every later step reads.

One table serves the announcement and the parser, so `plugin.yaml`'s static list and the defaults cannot
drift (a test checks it). Values are checked here, once, before anything renders: a bad parameter is one
``parameter NAME: expected ...`` line, however many steps would have read it. Each reader's rule is the
one the README's parameter table states.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved

#: a ``values`` entry: strings from Argo CD; from the marker file, YAML scalars, lists and maps nested as
#: in an Application's ``valuesObject``; written to helm as given
Scalar = str | int | float | bool | None
Value = Scalar | list["Value"] | dict[str, "Value"]
ParamValue = str | list[str] | dict[str, Value]

#: Helm's own release-name rule (helm's chartutil.ValidateReleaseName): lowercase RFC 1123 labels joined
#: by dots, at most 53 characters. It cannot start with "-", so a name is never read as a flag.
RELEASE_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
MAX_RELEASE_NAME = 53
MIB = 1024 * 1024
MAX_OUTPUT_BYTES = 64 * MIB
_SIZE = re.compile(r"(\d+)\s*(Ki|Mi|Gi)?")
_UNITS = {None: 1, "Ki": 1024, "Mi": MIB, "Gi": 1024 * MIB}
#: an unescaped dot separates the levels of a ``values`` key (``a\.b`` is one key "a.b", as with --set)
_KEY_DOT = re.compile(r"(?<!\\)\.")
#: levels of the values document helm reads (dotted levels and nested ones together)
MAX_VALUES_DEPTH = 32
#: its size as JSON: more belongs in a valueFiles file (an Application holding it would be as large)
MAX_VALUES_BYTES = MIB


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


def _release_name(name: str, value: ParamValue | None) -> str | None:
    text = _text(name, value)
    if text is not None:
        check_release_name(text, f"parameter {name}")
    return text


def is_release_name(text: str) -> bool:
    return 0 < len(text) <= MAX_RELEASE_NAME and RELEASE_NAME.fullmatch(text) is not None


def check_release_name(text: str, where: str) -> None:
    if not is_release_name(text):
        raise UsageError(
            f"{where}: {text[:80]!r} is not a Helm release name (lowercase letters, digits, '-' and '.', "
            f"starting and ending with a letter or digit, at most {MAX_RELEASE_NAME} characters)"
        )


def _array(name: str, value: ParamValue | None) -> tuple[str, ...]:
    """An array; a plain string is read as a comma-separated list (the UI's single-line form)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"parameter {name}: expected an array")
    return tuple(value)


def _values(name: str, value: ParamValue | None) -> tuple[tuple[str, Value], ...]:
    """Helm values as (dotted key, value) pairs sorted by key; each key's path and each value (a
    scalar, or lists and maps below it) are checked here, and the whole is bounded in depth and size."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise UsageError(f"parameter {name}: expected a map")
    size = 0
    for key, item in value.items():
        if not isinstance(key, str):  # from the marker file: YAML reads `n:` or `1:` as no string
            raise UsageError(f"parameter {name}: the key {str(key)[:80]!r} is not a string (quote it)")
        size += _checked_size(f"parameter {name}: {key!r}", item, len(value_path(key, f"parameter {name}")), size)
    pairs = tuple(sorted(value.items()))
    nest(pairs)  # conflicting keys fail here, not when helm runs
    return pairs


def _checked_size(where: str, tree: Any, depth: int, used: int) -> int:
    """The size of one value as JSON, checked node by node without recursion: refuses what helm could
    not read as given (keys that are not strings, numbers JSON cannot hold, other types), and stops as
    soon as the values pass their depth or size bound. ``depth`` is the levels of the value's key."""
    size = 0
    stack: list[tuple[str, Any, int]] = [("", tree, depth)]
    while stack:
        path, node, level = stack.pop()
        at = f"{where} at {path[:80]}{'...' if len(path) > 80 else ''}" if path else where
        if level > MAX_VALUES_DEPTH:
            raise UsageError(f"{at}: refused: the values nest deeper than {MAX_VALUES_DEPTH} levels")
        if isinstance(node, dict):
            for k, v in node.items():
                if not isinstance(k, str):
                    raise UsageError(f"{at}: the key {str(k)[:80]!r} is not a string (quote it)")
                size += len(json.dumps(k)) + 2
                stack.append((f"{path}.{k}", v, level + 1))
            size += 2
        elif isinstance(node, list):
            stack.extend((f"{path}[{i}]", v, level + 1) for i, v in enumerate(node))
            size += 2 + len(node)
        elif isinstance(node, float) and not math.isfinite(node):
            raise UsageError(f"{at}: not a number helm can read (write it as a string)")
        elif node is None or isinstance(node, str | int | float | bool):
            size += len(json.dumps(node))
        else:
            raise UsageError(f"{at}: expected a string, number, boolean, null, list or map, got {type(node).__name__}")
        if used + size > MAX_VALUES_BYTES:
            raise UsageError(
                f"parameter values: refused: more than {MAX_VALUES_BYTES >> 20} MiB as JSON "
                "(put large values in a valueFiles file)"
            )
    return size


def nest(pairs: tuple[tuple[str, Value], ...]) -> dict[str, Any]:
    """(dotted key, value) pairs as the nested mapping helm reads from a values file. A map given as a
    value is that key's own: a dotted key below it is a conflict, never merged into it."""
    doc: dict[str, Any] = {}
    made = {id(doc)}  # the levels dotted keys create; any other map is a value given as it is
    for key, value in pairs:
        *parents, leaf = value_path(key, "parameter values")
        node = doc
        for part in parents:
            if part not in node:
                node[part] = {}
                made.add(id(node[part]))
            child = node[part]
            if id(child) not in made:
                raise UsageError(f"parameter values: {key!r} goes below {part!r}, which has a value")
            node = child
        if leaf in node:
            raise UsageError(f"parameter values: {key!r} has a value and keys below it")
        node[leaf] = value
    return doc


def value_path(key: str, where: str) -> tuple[str, ...]:
    """``image.tag`` -> ("image", "tag"); ``a\\.b`` stays one level. No list indexes: helm's ``[0]``
    would be a key here, so it is refused instead of being misread."""
    parts = tuple(p.replace("\\.", ".") for p in _KEY_DOT.split(key))
    if not key or any(not p for p in parts):
        raise UsageError(f"{where}: {key!r}: empty key or level (keys are dotted paths such as image.tag)")
    if any("[" in p for p in parts):
        raise UsageError(f"{where}: {key!r}: list indexes are not supported (put lists in a valueFiles file)")
    return parts


def _output_cap(name: str, value: ParamValue | None) -> int:
    text = _text(name, value) or str(MAX_OUTPUT_BYTES)
    match = _SIZE.fullmatch(text.strip())
    size = int(match.group(1)) * _UNITS[match.group(2)] if match else 0
    if not 0 < size <= MAX_OUTPUT_BYTES:
        raise UsageError(f"parameter {name}: expected a size from 1 to 64Mi (bytes, or with Ki or Mi), got {text!r}")
    return size


def _on_removed(name: str, value: ParamValue | None) -> OnRemoved:
    return OnRemoved.parse(_text(name, value) or OnRemoved.FAIL.value, where=f"parameter {name}")


Reader = Callable[[str, ParamValue | None], "Any"]


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
        return "array" if self.read is _array else "map" if self.read is _values else "string"

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
_RELEASE_TIP = "Defaults to the application name; lowercase RFC 1123 labels, at most 53 characters"
_VALUES_TIP = "Helm values (dotted key: value), written to a values file as given"
_REMOTE_TIP = "Let kustomize fetch remote bases and charts (true/false)"
_OUTPUT_TIP = "Largest output accepted, at most 64Mi (bytes, or with Ki or Mi)"

#: in the order the UI lists them
SPECS: tuple[ParamSpec, ...] = (
    ParamSpec("allowEmpty", "Allow empty output", "Render nothing without failing (true/false)", _flag, "false"),
    ParamSpec("hpaAwareReplicas", "HPA-aware replicas", _HPA_TIP, _flag, "true"),
    ParamSpec("onRemoved", "Removed APIs", _REMOVED_TIP, _on_removed, "fail"),
    ParamSpec("rewriteApis", "Rewrite deprecated APIs", _REWRITE_TIP, _flag, "true"),
    ParamSpec("validate", "Validate schemas", "Validate the final objects against the target version", _flag, "false"),
    ParamSpec("additionalVersions", "Additional API rules", _RULES_TIP, _text),
    ParamSpec("releaseName", "Helm release name", _RELEASE_TIP, _release_name),
    ParamSpec("valueFiles", "Helm value files", "Value files relative to the chart folder", _array),
    ParamSpec("values", "Helm values", _VALUES_TIP, _values),
    ParamSpec("enableHelm", "Kustomize --enable-helm", _KUSTOMIZE_HELM_TIP, _flag, "false"),
    ParamSpec("allowRemoteBases", "Kustomize remote bases", _REMOTE_TIP, _flag, "false"),
    ParamSpec("maxOutputBytes", "Output size limit", _OUTPUT_TIP, _output_cap, "64Mi"),
)
SPEC_BY_NAME = {s.name: s for s in SPECS}


def _wire_scalar(where: str, value: Any) -> str:
    """Argo CD sends strings; numbers and booleans from hand-written JSON are read as their text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return str(value)
    raise UsageError(f"{where}: expected a string, got {type(value).__name__}")


def parse_parameters(raw: str | None, *, where: str = "ARGOCD_APP_PARAMETERS") -> dict[str, ParamValue]:
    """Parse Argo CD's JSON parameter list. Absent, empty or ``null`` mean no parameters."""
    if raw is None or not raw.strip() or raw.strip() == "null":
        return {}
    try:
        items = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from exc
    except RecursionError as exc:
        raise UsageError(f"{where}: refused: JSON nested too deeply") from exc
    if items is None:
        return {}
    if not isinstance(items, list):
        raise UsageError(f"{where}: expected a JSON array of parameters, got {type(items).__name__}")
    out: dict[str, ParamValue] = {}
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise UsageError(f"{where}[{i}]: each parameter needs a string 'name'")
        name = item["name"]
        at = f"{where}[{i}] ({name})"
        if isinstance(item.get("map"), dict):
            out[name] = {str(k): _wire_scalar(f"{at}.map[{k!r}]", v) for k, v in item["map"].items()}
        elif isinstance(item.get("array"), list):
            out[name] = [_wire_scalar(f"{at}.array[{j}]", v) for j, v in enumerate(item["array"])]
        elif "string" in item:
            out[name] = _wire_scalar(f"{at}.string", item["string"])
        else:
            raise UsageError(f"{at}: needs one of 'string', 'array' or 'map'")
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
    #: checked against Helm's rule; None means the application's name
    release_name: str | None
    #: as given; the settings resolve each inside the app folder
    value_files: tuple[str, ...]
    #: Helm values as (dotted key, value), sorted by key; written to a values file as given
    values: tuple[tuple[str, Value], ...]
    enable_helm: bool
    allow_remote_bases: bool
    #: bytes; every YAML stream read and the whole output stay below it
    max_output_bytes: int

    @classmethod
    def parse(cls, raw: Mapping[str, ParamValue]) -> Parameters:
        """Typed values from the raw ones (the table's default where one is absent); the first bad one
        raises. Names the plugin does not know are left to templates."""
        return cls(**{s.field: s.read(s.name, raw.get(s.name, s.default)) for s in SPECS})

    def values_document(self) -> dict[str, Any]:
        """The ``values`` entries as the nested mapping helm reads from a values file."""
        return nest(self.values)
