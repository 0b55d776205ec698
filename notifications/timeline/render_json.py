"""The timeline as JSON with a stable schema (``timeline.schema.json`` beside this module).

Every key is always present (null when unknown), entries are in time order, and the document is
versioned by ``apiVersion``/``kind`` so that scripts can rely on it.
"""

from __future__ import annotations

import json
from datetime import datetime
from importlib import resources
from typing import Any, TypedDict

from argocd_lifecycle.notifications.timeline.model import LANES, Entry, Timeline
from argocd_lifecycle.times import format_rfc3339

API_VERSION = "argocd-lifecycle.io/v1alpha1"
KIND = "ApplicationTimeline"


class ObjectJSON(TypedDict):
    apiVersion: str
    kind: str
    name: str
    namespace: str


class EntryJSON(TypedDict):
    time: str
    offsetSeconds: float
    lane: str
    reason: str
    type: str
    object: ObjectJSON
    message: str
    source: str
    firstTime: str
    lastTime: str
    count: int
    span: bool
    timestampsLost: bool


def schema() -> dict[str, Any]:
    text = resources.files(__package__).joinpath("timeline.schema.json").read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _rfc3339(value: datetime) -> str:
    """UTC with ``Z``; microseconds only when known (most Kubernetes times are whole seconds)."""
    return format_rfc3339(value, micro=bool(value.microsecond))


def _entry(entry: Entry, first: Entry) -> EntryJSON:
    return {
        "time": _rfc3339(entry.time),
        "offsetSeconds": round((entry.time - first.time).total_seconds(), 6),
        "lane": entry.lane.value,
        "reason": entry.reason,
        "type": entry.type,
        "object": {
            "apiVersion": entry.object.api_version,
            "kind": entry.object.kind,
            "name": entry.object.name,
            "namespace": entry.object.namespace,
        },
        "message": entry.message,
        "source": entry.source,
        "firstTime": _rfc3339(entry.time),
        "lastTime": _rfc3339(entry.last_time),
        "count": entry.count,
        "span": entry.is_span,
        "timestampsLost": entry.timestamps_lost,
    }


def document(timeline: Timeline) -> dict[str, Any]:
    window = timeline.window
    entries = timeline.entries
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "application": {
            "name": timeline.app,
            "namespace": timeline.namespace,
            "project": timeline.project or None,
            "destination": {
                "server": timeline.destination.server or None,
                "name": timeline.destination.name or None,
                "namespace": timeline.destination.namespace or None,
            },
        },
        "window": {
            "since": window.since,
            "start": _rfc3339(window.start) if window.start else None,
            "end": _rfc3339(window.end) if window.end else None,
        },
        "lanes": [lane.value for lane in LANES],
        "entries": [_entry(e, entries[0]) for e in entries],
        "notes": list(timeline.notes),
    }


def render(timeline: Timeline) -> str:
    return json.dumps(document(timeline), indent=2, ensure_ascii=False) + "\n"
