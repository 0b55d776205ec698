"""Short labels for the chart: a few words that say what an entry is, read at a glance."""

from __future__ import annotations

import re

from argocd_lifecycle.notifications.timeline.classify import HEALTH_PREFIX, SYNC_PREFIX
from argocd_lifecycle.notifications.timeline.model import Entry, Lane

_TRANSITION = re.compile(r":\s*(\S+)\s*->\s*(\S+)")
_ACTION = re.compile(r"^ran action (\S+)")


def _transition(message: str) -> str | None:
    m = _TRANSITION.search(message)
    return f"{m.group(1)} → {m.group(2)}" if m else None


def label(entry: Entry) -> str:
    """``Synced → OutOfSync``, ``sync started``, ``Pod Killing``, ``deployed 4f1c2ab``..."""
    msg, reason = entry.message, entry.reason
    if msg.startswith((SYNC_PREFIX, HEALTH_PREFIX)):
        return _transition(msg) or reason
    if reason == "OperationStarted":
        if "rollback" in msg:
            return "rollback started"
        return "auto-sync started" if msg.startswith("Initiated automated") else "sync started"
    if reason == "OperationCompleted":
        return "sync failed" if " failed" in msg else "sync succeeded"
    if reason == "ResourceActionRan":
        m = _ACTION.match(msg)
        action = f"action {m.group(1)}" if m else "action ran"
        return action if entry.object.kind == "Application" else f"{entry.object.kind} {action}"
    if entry.source == "status.history":
        return msg.split(" (", 1)[0]
    if entry.source == "status.operationState" and reason.startswith("Operation"):
        return "operation " + reason.removeprefix("Operation").lower()
    if entry.source == "status.health":
        return msg.split(" (", 1)[0]
    kind = entry.object.kind
    if entry.lane is Lane.RESOURCE and kind and kind != "Application" and not reason.startswith(kind):
        return f"{kind} {reason}"
    return reason


TIMES = "\N{MULTIPLICATION SIGN}"


def grouped(text: str, count: int) -> str:
    """``Pod Started x3`` (with a multiplication sign) for a count above one."""
    return f"{text} {TIMES}{count}" if count > 1 else text
