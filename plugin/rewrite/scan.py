"""``scan``: every object whose apiVersion is deprecated or removed at a target version, and reports."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from argocd_lifecycle.deprecations.rules import Key, KnowledgeBase, minor
from argocd_lifecycle.plugin.rewrite.target import Target, choose

REMOVED = "removed"
DEPRECATED = "deprecated"
# exit codes (README "Deprecated APIs")
EXIT_CLEAN, EXIT_ERROR, EXIT_DEPRECATED, EXIT_REMOVED = 0, 1, 2, 3


@dataclass(frozen=True)
class Finding:
    file: str
    document: int
    api_version: str
    kind: str
    name: str
    namespace: str
    status: str
    deprecated_in: str
    removed_in: str
    replacement: str
    note: str


class Scanner:
    def __init__(self, kb: KnowledgeBase, target: Key) -> None:
        self.kb = kb
        self.target = target
        self._static = Target.of(target)
        self._cache: dict[tuple[str, str], tuple[str, str, str, str, str] | None] = {}

    def _verdict(self, api: str, kind: str) -> tuple[str, str, str, str, str] | None:
        rule = self.kb.lookup(api, kind)
        if rule is None:
            return None
        if rule.removed_at(self.target):
            status = REMOVED
        elif rule.deprecated_at(self.target):
            status = DEPRECATED
        else:
            return None
        best = choose(self.kb, self._static, rule, kind)
        newest = rule.newest_replacement
        if best is None and newest is not None:
            best = f"{newest.api_version} {newest.kind}" if newest.kind else newest.api_version
        return (status, minor(rule.deprecated_in), minor(rule.removed_in), best or "", rule.note)

    def check(
        self, file: str, document: int, api: Any, kind: Any, *, name: Any = None, namespace: Any = None
    ) -> Finding | None:
        if not isinstance(api, str) or not isinstance(kind, str) or api not in self.kb.api_versions:
            return None
        key = (api, kind)
        if key not in self._cache:
            self._cache[key] = self._verdict(api, kind)
        verdict = self._cache[key]
        if verdict is None:
            return None
        status, deprecated_in, removed_in, replacement, note = verdict
        return Finding(
            file,
            document,
            api,
            kind,
            str(name or ""),
            str(namespace or ""),
            status,
            deprecated_in,
            removed_in,
            replacement,
            note,
        )

    def check_object(self, file: str, document: int, obj: Any) -> Iterator[Finding]:
        """One parsed document; a ``*List`` yields its items' findings."""
        if not isinstance(obj, dict):
            return
        kind = obj.get("kind")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(obj.get("items"), list):
            for item in obj["items"]:
                yield from self.check_object(file, document, item)
            return
        meta = obj.get("metadata")
        meta = meta if isinstance(meta, dict) else {}
        found = self.check(
            file,
            document,
            obj.get("apiVersion"),
            kind,
            name=meta.get("name") or meta.get("generateName"),
            namespace=meta.get("namespace"),
        )
        if found is not None:
            yield found


def exit_code(findings: Iterable[Finding]) -> int:
    statuses = {f.status for f in findings}
    if REMOVED in statuses:
        return EXIT_REMOVED
    return EXIT_DEPRECATED if DEPRECATED in statuses else EXIT_CLEAN


COLUMNS = (
    ("FILE", "file"),
    ("DOC", "document"),
    ("KIND", "kind"),
    ("NAMESPACE", "namespace"),
    ("NAME", "name"),
    ("API VERSION", "api_version"),
    ("STATUS", "status"),
    ("DEPRECATED IN", "deprecated_in"),
    ("REMOVED IN", "removed_in"),
    ("REPLACEMENT", "replacement"),
)


def _rows(findings: list[Finding]) -> list[list[str]]:
    return [[str(getattr(f, attr)) or "-" for _, attr in COLUMNS] for f in findings]


def render_table(findings: list[Finding], target: Key) -> str:
    if not findings:
        return f"No deprecated or removed APIs found for Kubernetes {minor(target)}.\n"
    rows = [[h for h, _ in COLUMNS], *_rows(findings)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() + "\n" for r in rows)


def render_markdown(findings: list[Finding], target: Key) -> str:
    head = f"### Deprecated and removed APIs for Kubernetes {minor(target)}\n\n"
    if not findings:
        return head + "None found.\n"
    lines = ["| " + " | ".join(h for h, _ in COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in _rows(findings)]
    return head + "\n".join(lines) + "\n"


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(p.capitalize() for p in rest)


def render_json(findings: list[Finding], target: Key, *, data_version: str, objects: int, errors: list[str]) -> str:
    doc = {
        "targetVersion": minor(target),
        "dataVersion": data_version,
        "summary": {
            "objects": objects,
            "removed": sum(f.status == REMOVED for f in findings),
            "deprecated": sum(f.status == DEPRECATED for f in findings),
            "errors": len(errors),
        },
        "items": [{_camel(k): v for k, v in asdict(f).items()} for f in findings],
        "errors": errors,
    }
    return json.dumps(doc, indent=2) + "\n"
