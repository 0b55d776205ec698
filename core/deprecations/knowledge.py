"""The knowledge base: which apiVersion + kind is deprecated or removed when, and what replaces it.

The built-in table ships as ``core/deprecations/deprecations.yaml`` (package data); users add rules for
their own CRDs in a file of the same shape (or in pluto's ``deprecated-versions`` shape, so existing pluto
files work). It lives in core because two parts read it: the plugin rewrites objects with it, and the
generator's upgrade preflight decides with it what an upgrade would break.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from argocd_lifecycle.deprecations import table
from argocd_lifecycle.deprecations.rules import ApiRule, Key, KnowledgeBase, Replacement
from argocd_lifecycle.errors import ConfigError, UsageError
from argocd_lifecycle.versions import KubeVersion
from argocd_lifecycle.yaml import yamlio

SCHEMA = "argocd-lifecycle.io/deprecations/v1"


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
    return KnowledgeBase(table.RULES, data_version=table.DATA_VERSION)


def load_file(path: Path, *, label: str | None = None) -> list[ApiRule]:
    """User rules from ``path``; ``label`` names it in messages (defaults to the path)."""
    origin = label or str(path)
    if not path.exists():  # a flag or parameter named it: a usage error, not a bad file
        raise UsageError(f"{origin}: no such file")
    data = yamlio.load_config(path, "the rules file", where=origin)
    return parse_rules(data, origin)[0]


def knowledge_base(additional: Path | None = None, *, label: str | None = None) -> KnowledgeBase:
    base = builtin()
    return base.extended(load_file(additional, label=label)) if additional else base
