"""The knowledge base: which apiVersion + kind is deprecated or removed when, and what replaces it.

The built-in table ships as ``core/deprecations/deprecations.yaml`` (package data); users add rules for
their own CRDs in a file of the same shape (or in pluto's ``deprecated-versions`` shape, so existing pluto
files work). It lives in core because two parts read it: the plugin rewrites objects with it, and the
generator's upgrade preflight decides with it what an upgrade would break.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from argocd_lifecycle import yamlio
from argocd_lifecycle.errors import ConfigError, UsageError
from argocd_lifecycle.versions import KubeVersion

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: a render is a cold start
if TYPE_CHECKING:
    from typing import Any

#: (major, minor)
Key = tuple[int, int]
BUILTIN = "built-in"
SCHEMA = "argocd-lifecycle.io/deprecations/v1"


@dataclass(frozen=True)
class Replacement:
    api_version: str
    #: first minor that serves it; None when unknown (treated as always available)
    since: Key | None = None
    #: set when the replacement is a different kind (Endpoints -> EndpointSlice): never converted
    kind: str | None = None
    #: a beta/alpha a cluster serves only when enabled: usable only when KUBE_API_VERSIONS lists it
    default_off: bool = False


@dataclass(frozen=True)
class ApiRule:
    api_version: str
    kind: str
    deprecated_in: Key | None = None
    removed_in: Key | None = None
    replacements: tuple[Replacement, ...] = ()
    #: False for review/subresource/wire types that never appear in manifests
    persisted: bool = True
    note: str = ""
    sources: str = ""
    #: why a same-kind replacement exists but the plugin does not convert to it (a human must migrate);
    #: empty when the plugin converts automatically (users' rules are renames, so always automatic)
    manual: str = ""
    #: "built-in" or the path of the user's file
    origin: str = BUILTIN

    def removed_at(self, version: Key) -> bool:
        return self.removed_in is not None and version >= self.removed_in

    def deprecated_at(self, version: Key) -> bool:
        return self.deprecated_in is not None and version >= self.deprecated_in

    @property
    def newest_replacement(self) -> Replacement | None:
        return self.replacements[-1] if self.replacements else None

    @property
    def converts(self) -> bool:
        """Whether the plugin rewrites objects of this pair by itself (to a same-kind replacement)."""
        return not self.manual and any(r.kind is None for r in self.replacements)


def minor(key: Key | None) -> str:
    return f"{key[0]}.{key[1]}" if key else ""


class KnowledgeBase:
    """Rules by (apiVersion, kind); a rule with kind ``*`` covers every kind of its apiVersion."""

    def __init__(self, rules: Iterable[ApiRule], *, data_version: str = "") -> None:
        self.rules: dict[tuple[str, str], ApiRule] = {}
        self.data_version = data_version
        for rule in rules:
            self.rules[(rule.api_version, rule.kind)] = rule
        self._wildcards = {api: r for (api, kind), r in self.rules.items() if kind == "*"}
        #: every apiVersion with a rule: lets callers skip objects without a dictionary lookup pair
        self.api_versions = frozenset(api for api, _ in self.rules)

    def __len__(self) -> int:
        return len(self.rules)

    def lookup(self, api_version: str, kind: str) -> ApiRule | None:
        if api_version not in self.api_versions:
            return None
        return self.rules.get((api_version, kind)) or self._wildcards.get(api_version)

    def extended(self, extra: Iterable[ApiRule]) -> KnowledgeBase:
        """A new base with ``extra`` added; a rule that repeats one already known is refused (as pluto)."""
        rules = dict(self.rules)
        for rule in extra:
            old = rules.get((rule.api_version, rule.kind))
            if old is not None:
                raise ConfigError(f"{rule.origin}: {rule.api_version} {rule.kind} is already defined ({old.origin})")
            rules[(rule.api_version, rule.kind)] = rule
        return KnowledgeBase(rules.values(), data_version=self.data_version)


def _version(value: Any, where: str) -> Key | None:
    if value is None or value == "":
        return None
    return KubeVersion.parse(str(value), where=where).key


def _text(entry: Mapping[str, Any], key: str, where: str, *, required: bool = False) -> str:
    value = entry.get(key)
    if value is None or value == "":
        if required:
            raise ConfigError(f"{where}: '{key}' is required")
        return ""
    if not isinstance(value, str):
        raise ConfigError(f"{where}: '{key}' must be a string")
    return value


def _replacement(item: Any, where: str) -> Replacement:
    if not isinstance(item, Mapping):
        raise ConfigError(f"{where}: expected a mapping with apiVersion and since")
    unknown = set(item) - {"apiVersion", "since", "kind", "defaultOff"}
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(sorted(map(str, unknown)))}")
    return Replacement(
        api_version=_text(item, "apiVersion", where, required=True),
        since=_version(item.get("since"), f"{where}.since"),
        kind=_text(item, "kind", where) or None,
        default_off=bool(item.get("defaultOff", False)),
    )


_RULE_FIELDS = {
    "apiVersion",
    "kind",
    "deprecatedIn",
    "removedIn",
    "replacements",
    "persisted",
    "note",
    "sources",
    "manual",
}


def _rule(entry: Any, where: str, origin: str) -> ApiRule:
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where}: expected a mapping")
    unknown = set(entry) - _RULE_FIELDS
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(sorted(map(str, unknown)))}")
    raw = entry.get("replacements") or []
    if not isinstance(raw, list):
        raise ConfigError(f"{where}.replacements: expected a list")
    try:
        return ApiRule(
            api_version=_text(entry, "apiVersion", where, required=True),
            kind=_text(entry, "kind", where, required=True),
            deprecated_in=_version(entry.get("deprecatedIn"), f"{where}.deprecatedIn"),
            removed_in=_version(entry.get("removedIn"), f"{where}.removedIn"),
            replacements=tuple(_replacement(r, f"{where}.replacements[{i}]") for i, r in enumerate(raw)),
            persisted=entry.get("persisted", True) is not False,
            note=_text(entry, "note", where),
            sources=_text(entry, "sources", where),
            manual=_text(entry, "manual", where),
            origin=origin,
        )
    except UsageError as exc:  # a bad version string: same message, configuration error
        raise ConfigError(exc.message) from exc


def _pluto_rule(entry: Any, where: str, origin: str) -> ApiRule | None:
    """One row of pluto's ``deprecated-versions`` list; rows for other components are skipped."""
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where}: expected a mapping")
    if str(entry.get("component") or "k8s") != "k8s":
        return None
    replacement = _text(entry, "replacement-api", where)
    try:
        since = _version(entry.get("replacement-available-in"), f"{where}.replacement-available-in")
        return ApiRule(
            api_version=_text(entry, "version", where, required=True),
            kind=_text(entry, "kind", where) or "*",
            deprecated_in=_version(entry.get("deprecated-in"), f"{where}.deprecated-in"),
            removed_in=_version(entry.get("removed-in"), f"{where}.removed-in"),
            replacements=(Replacement(replacement, since),) if replacement else (),
            origin=origin,
        )
    except UsageError as exc:
        raise ConfigError(exc.message) from exc


def parse_rules(data: Any, origin: str) -> tuple[list[ApiRule], str]:
    """Rules and data version from a parsed file of either shape."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{origin}: expected a mapping with an 'apis' list")
    rules: list[ApiRule] = []
    if "deprecated-versions" in data:
        items = data["deprecated-versions"]
        if not isinstance(items, list):
            raise ConfigError(f"{origin}: 'deprecated-versions' must be a list")
        for i, item in enumerate(items):
            rule = _pluto_rule(item, f"{origin}: deprecated-versions[{i}]", origin)
            if rule is not None:
                rules.append(rule)
    else:
        items = data.get("apis")
        if not isinstance(items, list):
            raise ConfigError(f"{origin}: expected an 'apis' list")
        schema = data.get("schema", SCHEMA)
        if schema != SCHEMA:
            raise ConfigError(f"{origin}: unsupported schema {schema!r} (expected {SCHEMA})")
        rules = [_rule(item, f"{origin}: apis[{i}]", origin) for i, item in enumerate(items)]
    seen: set[tuple[str, str]] = set()
    for rule in rules:
        key = (rule.api_version, rule.kind)
        if key in seen:
            raise ConfigError(f"{origin}: {rule.api_version} {rule.kind} is listed twice")
        seen.add(key)
    return rules, str(data.get("dataVersion") or "")


#: the source of the built-in table, and the Python module compiled from it (``__main__.py``, which
#: checks it as any rules file), which is what a render reads: parsing the YAML took a tenth of a cold start
TABLE = Path(__file__).with_name("deprecations.yaml")
COMPILED = TABLE.with_name("table.py")


@functools.cache
def builtin() -> KnowledgeBase:
    """The built-in table, indexed once per process."""
    from argocd_lifecycle.deprecations import table

    return KnowledgeBase(table.RULES, data_version=table.DATA_VERSION)


def load_file(path: Path, *, label: str | None = None) -> list[ApiRule]:
    """User rules from ``path``; ``label`` names it in messages (defaults to the path)."""
    origin = label or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise UsageError(f"{origin}: no such file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{origin}: cannot be read ({type(exc).__name__})") from exc
    try:
        data = yamlio.load(text)
    except Exception as exc:  # yaml errors carry marks; one line is enough here
        raise ConfigError(f"{origin}: not valid YAML ({type(exc).__name__})") from exc
    return parse_rules(data, origin)[0]


def knowledge_base(additional: Path | None = None, *, label: str | None = None) -> KnowledgeBase:
    base = builtin()
    return base.extended(load_file(additional, label=label)) if additional else base
