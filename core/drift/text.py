"""A drift report as text (the CLI's table, one bounded line for Events and messages) and as JSON."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.drift.attribute import ObjectDrift, ObjectRef
from argocd_lifecycle.drift.report import LISTED, LIVE, NONE, DriftReport, since_text

#: an Event's message is cut at 1 KiB by many readers; ours stays under it
SUMMARY_CHARS = 1000


def headline(r: DriftReport) -> str:
    app = r.app
    who = f"Application {app.namespace}/{app.name}" if app.namespace else f"Application {app.name}"
    if app.state == NONE:
        return f"{who}: no OutOfSync object"
    if app.state == LIVE:
        since = since_text(app)
        at = f", synced {since}" if since else ""
        return f"{who}: live drift (revision {app.synced_revision or '?'}{at}; the live state changed since)"
    synced = app.synced_revision or "none"
    return f"{who}: a new revision not yet synced (desired {app.desired_revision or '?'}, synced {synced})"


def listed(refs: tuple[ObjectRef, ...], limit: int = LISTED) -> str:
    """``Deployment shop/web, ConfigMap shop/cfg and 3 more``."""
    shown = ", ".join(ref.text() for ref in refs[:limit])
    return shown + (f" and {len(refs) - limit} more" if len(refs) > limit else "")


def object_lines(o: ObjectDrift) -> list[str]:
    if o.unattributed:
        return [f"not attributed: {o.unattributed}"]
    lines = [c.line() for c in o.changes] or ["no field changed by anyone but Argo CD since the sync"]
    if o.more:
        lines.append(f"... and {o.more} more fields")
    if o.note:
        lines.append(f"note: {o.note}")
    return lines


def table(r: DriftReport) -> str:
    out = [headline(r)]
    if r.app.out_of_sync:
        out.append(f"OutOfSync ({len(r.app.out_of_sync)}): {listed(r.app.out_of_sync)}")
    for o in r.objects:
        out.append(o.ref.text())
        out += [f"  {line}" for line in object_lines(o)]
    if r.skipped:
        out.append(f"{r.skipped} more OutOfSync objects not read (at most {len(r.objects)} per episode)")
    return "\n".join(out) + "\n"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def attribution(r: DriftReport, limit: int = SUMMARY_CHARS) -> str:
    """Who changed what, object by object, on one line of at most ``limit`` characters ("" for none)."""
    return _cut(" | ".join(f"{o.ref.text()}: {'; '.join(object_lines(o))}" for o in r.objects), limit)


def summary(r: DriftReport, limit: int = SUMMARY_CHARS) -> str:
    """One line naming objects, fields, values and managers, at most ``limit`` characters."""
    parts = attribution(r, limit)
    text = headline(r) + (f": {parts}" if parts else "")
    if not parts and r.app.out_of_sync:
        text += f": {listed(r.app.out_of_sync)}"
    return _cut(text, limit)


def _ref(ref: ObjectRef) -> dict[str, str]:
    return {"group": ref.group, "kind": ref.kind, "namespace": ref.namespace, "name": ref.name}


def to_json(r: DriftReport) -> dict[str, Any]:
    app = r.app
    return {
        "application": app.name,
        "namespace": app.namespace,
        "project": app.project,
        "state": app.state,
        "desiredRevision": app.desired_revision,
        "syncedRevision": app.synced_revision,
        "syncedAt": since_text(app),
        "attributed": r.attributed,
        "outOfSync": [_ref(ref) for ref in app.out_of_sync],
        "objects": [
            {
                **_ref(o.ref),
                "unattributed": o.unattributed,
                "note": o.note,
                "more": o.more,
                "changes": [
                    {
                        "path": c.path,
                        "manager": c.manager,
                        "operation": c.operation,
                        "subresource": c.subresource,
                        "time": c.time,
                        "live": c.live,
                        "applied": c.applied,
                        "appliedState": c.applied_state,
                        "line": c.line(),
                    }
                    for c in o.changes
                ],
            }
            for o in r.objects
        ],
        "skipped": r.skipped,
    }
