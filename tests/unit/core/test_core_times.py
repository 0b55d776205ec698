"""Durations and RFC3339 timestamps as they are written in flags, config files and the APIs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from argocd_lifecycle.times import MAX_SECONDS, format_rfc3339, parse_duration, parse_rfc3339, parse_rfc3339_datetime


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30s", 30.0),
        ("5m", 300.0),
        ("2h", 7200.0),
        ("14d", 14 * 86400.0),
        ("1h30m", 5400.0),
        ("500ms", 0.5),
        ("1m500ms", 60.5),
        (" 10s ", 10.0),
        ("0s", 0.0),
        ("366d", MAX_SECONDS),
    ],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["", "10", "5x", "m", "1y", "-5s", "1.5h", "30s5m", "s"])
def test_bad_durations_say_which_form_is_accepted(bad: str) -> None:
    with pytest.raises(ValueError, match=r"is not a duration like 30s, 5m, 2h or 1h30m"):
        parse_duration(bad)


def test_durations_are_bounded() -> None:
    with pytest.raises(ValueError, match="longer than a year"):
        parse_duration("367d")
    with pytest.raises(ValueError, match="longer than a year"):
        parse_duration("99999999999999h")


def test_a_non_string_is_refused_not_crashed_on() -> None:
    with pytest.raises(ValueError, match="is not a duration"):
        parse_duration(30)  # type: ignore[arg-type]


def test_format_is_utc_to_the_second() -> None:
    assert format_rfc3339(0) == "1970-01-01T00:00:00Z"
    assert format_rfc3339(1767366245.9) == "2026-01-02T15:04:05Z"  # fractions dropped, not rounded


def test_format_takes_datetimes_in_any_zone_and_naive_ones_as_utc() -> None:
    assert format_rfc3339(datetime(2026, 1, 2, 17, 4, 5, 900_000, tzinfo=timezone(timedelta(hours=2)))) == (
        "2026-01-02T15:04:05Z"
    )
    assert format_rfc3339(datetime(2026, 1, 2, 15, 4, 5)) == "2026-01-02T15:04:05Z"


def test_format_with_microseconds_for_micro_time() -> None:
    assert format_rfc3339(1767366245.25, micro=True) == "2026-01-02T15:04:05.250000Z"
    assert format_rfc3339(datetime(2026, 1, 2, 15, 4, 5, tzinfo=UTC), micro=True) == "2026-01-02T15:04:05.000000Z"


@pytest.mark.parametrize(
    ("text", "ts"),
    [
        ("2026-01-02T15:04:05Z", 1767366245.0),
        ("2026-01-02T15:04:05z", 1767366245.0),
        ("2026-01-02T17:04:05+02:00", 1767366245.0),
        ("2026-01-02T15:04:05.250Z", 1767366245.25),
    ],
)
def test_parse_with_any_zone(text: str, ts: float) -> None:
    assert parse_rfc3339(text) == ts


def test_round_trip() -> None:
    assert parse_rfc3339(format_rfc3339(1767366245)) == 1767366245


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("2026-01-02T15:04:05", "has no time zone"),
        ("yesterday", "is not an RFC3339 timestamp"),
        ("", "expected an RFC3339 timestamp"),
    ],
)
def test_bad_timestamps(bad: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_rfc3339(bad)


def test_a_caller_may_allow_longer_durations() -> None:
    assert parse_duration("3650d", longest=36500 * 86400.0) == 3650 * 86400.0
    with pytest.raises(ValueError, match="longer than 36500 days"):
        parse_duration("36501d", longest=36500 * 86400.0)


def test_datetime_parse_is_utc_to_the_microsecond() -> None:
    parsed = parse_rfc3339_datetime("2026-03-04T15:02:11.123456+01:00")
    assert parsed.isoformat() == "2026-03-04T14:02:11.123456+00:00"
    assert parse_rfc3339("2026-03-04T15:02:11.123456+01:00") == parsed.timestamp()


@pytest.mark.parametrize("edge", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_timestamps_pushed_past_the_calendar_are_refused_not_crashed_on(edge: str) -> None:
    with pytest.raises(ValueError, match="out of range"):
        parse_rfc3339(edge)
