"""Reading Events of both APIs: times, counts, series, and the sub-second order kept in Event names."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from argocd_lifecycle.notifications.timeline.events import read_event
from argocd_lifecycle.notifications.timeline.model import TimelineInputError


def core(**over: object) -> dict[str, object]:
    event: dict[str, object] = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": "web.17f9a1", "namespace": "shop", "creationTimestamp": "2026-03-04T14:02:11Z"},
        "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "shop", "apiVersion": "v1"},
        "reason": "BackOff",
        "message": "Back-off restarting failed container",
        "type": "Warning",
        "source": {"component": "kubelet", "host": "worker-1"},
        "firstTimestamp": "2026-03-04T14:02:11Z",
        "lastTimestamp": "2026-03-04T14:03:40Z",
        "count": 7,
    }
    event.update(over)
    return event


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_legacy_core_event_keeps_first_last_and_count() -> None:
    event = read_event(core(), "e")
    assert (event.first, event.last, event.count) == (at("2026-03-04T14:02:11"), at("2026-03-04T14:03:40"), 7)
    assert (event.source, event.type, event.object.kind, event.object.name) == ("kubelet", "Warning", "Pod", "web-1")


def test_core_event_written_by_the_events_api_uses_event_time_and_series() -> None:
    event = read_event(
        core(
            firstTimestamp=None,
            lastTimestamp=None,
            count=None,
            source={},
            reportingComponent="default-scheduler",
            eventTime="2026-03-04T14:02:12.418302Z",
            series={"count": 3, "lastObservedTime": "2026-03-04T14:02:40.000100Z"},
        ),
        "e",
    )
    assert event.first == at("2026-03-04T14:02:12.418302")
    assert event.last == at("2026-03-04T14:02:40.000100")
    assert event.count == 3
    assert event.source == "default-scheduler"


def test_events_k8s_io_event_read_back_from_a_legacy_recorder() -> None:
    event = read_event(
        {
            "apiVersion": "events.k8s.io/v1",
            "kind": "Event",
            "metadata": {"name": "web-1.x", "namespace": "shop"},
            "regarding": {"kind": "Pod", "name": "web-1", "namespace": "shop"},
            "reason": "Unhealthy",
            "note": "Readiness probe failed",
            "type": "Warning",
            "eventTime": None,
            "reportingController": "",
            "deprecatedSource": {"component": "kubelet"},
            "deprecatedFirstTimestamp": "2026-03-04T14:02:19Z",
            "deprecatedLastTimestamp": "2026-03-04T14:02:34Z",
            "deprecatedCount": 4,
        },
        "e",
    )
    assert (event.message, event.source, event.count) == ("Readiness probe failed", "kubelet", 4)
    assert (event.first, event.last) == (at("2026-03-04T14:02:19"), at("2026-03-04T14:02:34"))


def test_the_name_suffix_gives_the_sub_second_only_inside_the_recorded_second() -> None:
    nanos = int(at("2026-03-04T14:02:11").timestamp()) * 10**9 + 734_000_123
    inside = read_event(core(metadata={"name": f"checkout.{nanos:x}", "namespace": "argocd"}), "e")
    assert inside.first == at("2026-03-04T14:02:11.734000")
    elsewhere = read_event(core(metadata={"name": f"checkout.{nanos + 5 * 10**9:x}"}), "e")
    assert elsewhere.first == at("2026-03-04T14:02:11")
    not_hex = read_event(core(metadata={"name": "checkout.not-a-time-stamp"}), "e")
    assert not_hex.first == at("2026-03-04T14:02:11")


def test_go_zero_time_counts_as_unset() -> None:
    event = read_event(core(eventTime="0001-01-01T00:00:00Z"), "e")
    assert event.first == at("2026-03-04T14:02:11")


@pytest.mark.parametrize(
    ("over", "message"),
    [
        ({"firstTimestamp": "yesterday"}, "events.json: item 3: firstTimestamp: "),
        ({"count": True}, "events.json: item 3: count should be a int"),
        ({"involvedObject": "Pod/web"}, "events.json: item 3: involvedObject should be a dict"),
        (
            {"firstTimestamp": None, "lastTimestamp": None, "metadata": {"name": "x"}},
            "events.json: item 3: the Event has no eventTime, firstTimestamp or creationTimestamp",
        ),
    ],
)
def test_bad_events_name_the_file_item_and_field(over: dict[str, object], message: str) -> None:
    with pytest.raises(TimelineInputError) as err:
        read_event(core(**over), "events.json: item 3")
    assert str(err.value).startswith(message)
