"""Read core/v1 and events.k8s.io/v1 Events into one shape, keeping what Kubernetes kept of their times.

A core/v1 Event written by the legacy recorder (kubelet, Argo CD's audit logger) has
``firstTimestamp``/``lastTimestamp``/``count``; one written through events.k8s.io has ``eventTime``
and, once repeated, ``series{count, lastObservedTime}``. Read through the other API the same
Event shows its fields under the other names (``deprecated*``, ``regarding``, ``note``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from argocd_lifecycle.notifications.timeline.model import ObjectRef, TimelineInputError
from argocd_lifecycle.notifications.timeline.wire import CoreEventWire, EventsV1EventWire
from argocd_lifecycle.times import parse_rfc3339_datetime

EVENTS_API = "events.k8s.io/"


@dataclass(frozen=True)
class KubeEvent:
    name: str
    namespace: str
    object: ObjectRef
    reason: str
    message: str
    type: str
    source: str
    first: datetime
    last: datetime
    count: int
    annotations: Mapping[str, str]


def field(obj: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    """``obj[key]`` when present and of ``kind``; None when absent or null; else a clear error."""
    value = obj.get(key)
    if value is None:
        return None
    if kind is int and isinstance(value, bool):
        value = str(value)  # bool is an int to Python, never a count
    if not isinstance(value, kind):
        raise TimelineInputError(f"{where}: {key} should be a {kind.__name__}, got {type(value).__name__}")
    return value


def text(obj: Mapping[str, Any], key: str, where: str) -> str:
    return str(field(obj, key, str, where) or "")


def mapping(obj: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = field(obj, key, dict, where)
    return value if value is not None else {}


def timestamp(obj: Mapping[str, Any], key: str, where: str) -> datetime | None:
    """``obj[key]``, an RFC3339 ``Time`` (``...Z``) or ``MicroTime`` (``....123456Z``), in UTC.

    None for null, empty and Go's zero time (``0001-01-01T00:00:00Z``), which is how an unset
    MicroTime is serialised; any other text that is not a timestamp is an error naming the field.
    """
    value = obj.get(key)
    if value is None or value == "":
        return None
    try:
        if not isinstance(value, str):
            raise ValueError(f"expected a timestamp string, got {type(value).__name__}")
        parsed = parse_rfc3339_datetime(value)
    except ValueError as exc:
        raise TimelineInputError(f"{where}: {key}: {exc}") from exc
    return None if parsed.year == 1 else parsed


def is_events_api(obj: Mapping[str, Any]) -> bool:
    api = obj.get("apiVersion")
    if isinstance(api, str) and api:
        return api.startswith(EVENTS_API)
    return "regarding" in obj or "note" in obj


def _precise(name: str, first: datetime) -> datetime:
    """Recorders name Events ``<object>.<hex UnixNano>``: recover the sub-second of a whole-second time.

    Used only when the decoded instant lies inside the recorded second, so a name of any other
    form changes nothing.
    """
    if first.microsecond:
        return first
    _, _, suffix = name.rpartition(".")
    if not 12 <= len(suffix) <= 17:
        return first
    try:
        nanos = int(suffix, 16)
    except ValueError:
        return first
    decoded = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=nanos // 1000)
    if first <= decoded < first + timedelta(seconds=1):
        return decoded
    return first


def read_event(obj: CoreEventWire | EventsV1EventWire, where: str) -> KubeEvent:
    """One Event of either API. ``where`` names it in errors (``events.json: item 3``)."""
    meta = mapping(obj, "metadata", where)
    new_api = is_events_api(obj)
    ref = mapping(obj, "regarding" if new_api else "involvedObject", where)
    series = mapping(obj, "series", where)
    created = timestamp(meta, "creationTimestamp", where)
    event_time = timestamp(obj, "eventTime", where)
    if new_api:
        legacy_first = timestamp(obj, "deprecatedFirstTimestamp", where)
        legacy_last = timestamp(obj, "deprecatedLastTimestamp", where)
        legacy_count = field(obj, "deprecatedCount", int, where)
        message = text(obj, "note", where)
        source = text(obj, "reportingController", where) or text(
            mapping(obj, "deprecatedSource", where), "component", where
        )
    else:
        legacy_first = timestamp(obj, "firstTimestamp", where)
        legacy_last = timestamp(obj, "lastTimestamp", where)
        legacy_count = field(obj, "count", int, where)
        message = text(obj, "message", where)
        source = text(mapping(obj, "source", where), "component", where) or text(obj, "reportingComponent", where)
    first = event_time or legacy_first or created
    if first is None:
        raise TimelineInputError(f"{where}: the Event has no eventTime, firstTimestamp or creationTimestamp")
    name = text(meta, "name", where)
    first = _precise(name, first)
    last = timestamp(series, "lastObservedTime", where) or legacy_last or first
    count = field(series, "count", int, where) or legacy_count or 1
    annotations = mapping(meta, "annotations", where)
    return KubeEvent(
        name=name,
        namespace=text(meta, "namespace", where),
        object=ObjectRef(
            kind=text(ref, "kind", where),
            name=text(ref, "name", where),
            namespace=text(ref, "namespace", where),
            api_version=text(ref, "apiVersion", where),
        ),
        reason=text(obj, "reason", where),
        message=message,
        type=text(obj, "type", where) or "Normal",
        source=source,
        first=first,
        last=max(last, first),
        count=max(int(count), 1),
        annotations={str(k): str(v) for k, v in annotations.items()},
    )
