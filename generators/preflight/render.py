"""The preflight report as a table (default), JSON or Markdown, on stdout; like ``scan``'s formats.

Every value comes from Applications and Secrets someone else wrote: control characters are shown
escaped, so no value can start a new row or line of the output.
"""

from __future__ import annotations

import json
import re
from typing import Any

from argocd_lifecycle.deprecations.rules import minor
from argocd_lifecycle.generators.preflight.report import (
    DroppedApi,
    Finding,
    Report,
    Status,
    blockers_by_project,
    headline,
    project_summary,
)

FORMATS = ("table", "json", "markdown")
API_VERSION = "argocd-lifecycle.io/v1alpha1"
KIND = "UpgradePreflight"
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")

COLUMNS = ("APPLICATION", "PROJECT", "KIND", "NAMESPACE", "NAME", "API VERSION", "STATUS", "REMOVED IN", "REPLACEMENT",
           "NOTE")  # fmt: skip
DROPPED_COLUMNS = ("API VERSION", "KIND", "REMOVED IN", "REPLACEMENT")


def clean(text: str) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _row(f: Finding) -> list[str]:
    r = f.resource
    values = [
        f.application,
        f.project,
        r.kind,
        r.namespace,
        r.name,
        r.api_version,
        f.status.value,
        f.removed_in,
        f.replacement,
        f.note,
    ]
    return [clean(v) or "-" for v in values]


def _dropped_rows(report: Report) -> list[list[str]]:
    return [[clean(v) or "-" for v in (d.api_version, d.kind, d.removed_in, d.replacement)] for d in report.dropped]


def _aligned(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() + "\n" for r in rows)


def _versions(report: Report) -> str:
    now = minor(report.current) if report.current else "an unknown version"
    return f"{now} -> {minor(report.target)}"


def render_table(report: Report) -> str:
    out = [f"{clean(headline(report))} ({_versions(report)}, {len(report.applications)} Application(s), "
           f"{report.objects} object(s))\n"]  # fmt: skip
    if report.blockers:
        out.append(f"blockers by project: {clean(project_summary(report, len(report.blockers)))}\n")
    if report.findings:
        out.append("\n" + _aligned([list(COLUMNS), *(_row(f) for f in report.findings)]))
    if report.dropped:
        out.append(f"\nAPIs {clean(report.cluster.name)} serves today that {minor(report.target)} no longer serves:\n")
        out.append(_aligned([list(DROPPED_COLUMNS), *_dropped_rows(report)]))
    out.extend(f"note: {clean(n)}\n" for n in report.notes)
    return "".join(out)


def _md_table(head: tuple[str, ...], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def render_markdown(report: Report) -> str:
    out = [f"### Upgrade preflight: {clean(report.cluster.name)} {_versions(report)}\n\n{clean(headline(report))}.\n"]
    if report.blockers:
        out.append(f"\nBlockers by project: {clean(project_summary(report, len(report.blockers)))}.\n")
    if report.findings:
        out.append("\n" + _md_table(COLUMNS, [_row(f) for f in report.findings]))
    if report.dropped:
        out.append(f"\n#### APIs the cluster serves today that {minor(report.target)} no longer serves\n\n")
        out.append(_md_table(DROPPED_COLUMNS, _dropped_rows(report)))
    if report.notes:
        out.append("\n" + "".join(f"- {clean(n)}\n" for n in report.notes))
    return "".join(out)


def _finding_json(f: Finding) -> dict[str, Any]:
    r = f.resource
    return {
        "application": f.application,
        "project": f.project,
        "renderedBy": "argocd-lifecycle" if f.plugin else "",
        "kind": r.kind,
        "namespace": r.namespace,
        "name": r.name,
        "apiVersion": r.api_version,
        "status": f.status.value,
        "deprecatedIn": f.deprecated_in,
        "removedIn": f.removed_in,
        "replacement": f.replacement,
        "note": f.note,
    }


def _dropped_json(d: DroppedApi) -> dict[str, str]:
    return {"apiVersion": d.api_version, "kind": d.kind, "removedIn": d.removed_in, "replacement": d.replacement,
            "note": d.note}  # fmt: skip


def report_json(report: Report) -> dict[str, Any]:
    """The stable document (every key always present)."""
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "cluster": {"name": report.cluster.name, "server": report.cluster.server},
        "currentVersion": minor(report.current) if report.current else "",
        "targetVersion": minor(report.target),
        "dataVersion": report.data_version,
        "summary": {
            "applications": len(report.applications),
            "objects": report.objects,
            "blockers": report.count(Status.BLOCKER),
            "rewritten": report.count(Status.REWRITTEN),
            "deprecated": report.count(Status.DEPRECATED),
            "blockersByProject": dict(blockers_by_project(report)),
        },
        "applications": list(report.applications),
        "items": [_finding_json(f) for f in report.findings],
        "droppedApis": [_dropped_json(d) for d in report.dropped],
        "notes": list(report.notes),
    }


def render_json(report: Report) -> str:
    return json.dumps(report_json(report), indent=2) + "\n"


def render(report: Report, output: str) -> str:
    if output == "json":
        return render_json(report)
    if output == "markdown":
        return render_markdown(report)
    return render_table(report)
