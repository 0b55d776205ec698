"""Durations (``30s``, ``2h``, ``1h30m``) and RFC3339 timestamps, as written in config and the API."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_DURATION = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$")
_UNITS = (86400.0, 3600.0, 60.0, 1.0, 0.001)
MAX_SECONDS = 366 * 86400.0


def parse_duration(text: str, *, longest: float = MAX_SECONDS) -> float:
    """Seconds in ``text``, at most ``longest`` (a year unless the caller allows more); raises
    ValueError naming the accepted form."""
    match = _DURATION.match(text.strip()) if isinstance(text, str) else None
    if not match or not any(match.groups()):
        raise ValueError(f"{text!r} is not a duration like 30s, 5m, 2h or 1h30m")
    seconds = sum(float(part) * unit for part, unit in zip(match.groups(), _UNITS, strict=True) if part)
    if seconds > longest:
        limit = "a year" if longest == MAX_SECONDS else f"{longest / 86400:g} days"
        raise ValueError(f"{text!r} is longer than {limit}")
    return seconds


def format_duration(seconds: float) -> str:
    """``10s``, ``2m``, ``14d``, ``500ms``: seconds in the largest unit that writes them whole (what
    ``parse_duration`` reads back), for the defaults a command's help shows."""
    for unit, name in zip(_UNITS, ("d", "h", "m", "s"), strict=False):
        if seconds >= unit and seconds % unit == 0:
            return f"{int(seconds // unit)}{name}"
    return f"{round(seconds * 1000)}ms"


def format_rfc3339(moment: float | datetime, *, micro: bool = False) -> str:
    """``2026-01-02T15:04:05Z`` in UTC, from Unix seconds or a datetime (a naive one is taken as UTC).

    Fractions are dropped (Kubernetes' ``metav1.Time``); ``micro=True`` keeps microseconds
    (``metav1.MicroTime``, as Leases want).
    """
    if isinstance(moment, datetime):
        utc = (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)
    else:
        utc = datetime.fromtimestamp(moment, UTC)
    return utc.isoformat(timespec="microseconds" if micro else "seconds").replace("+00:00", "Z")


def parse_rfc3339_datetime(text: str) -> datetime:
    """An RFC3339 timestamp with a zone (``Z`` or ``+02:00``) as an aware UTC datetime, to the
    microsecond (``metav1.MicroTime`` keeps them); ValueError otherwise."""
    if not isinstance(text, str) or not text:
        raise ValueError("expected an RFC3339 timestamp such as 2026-01-02T15:04:05Z")
    try:
        parsed = datetime.fromisoformat(text.strip().replace("z", "Z"))
    except ValueError as exc:
        raise ValueError(f"{text!r} is not an RFC3339 timestamp such as 2026-01-02T15:04:05Z") from exc
    if parsed.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone (add Z or +00:00)")
    try:
        return parsed.astimezone(UTC)
    except OverflowError as exc:  # year 1 or 9999 pushed past the calendar by its offset
        raise ValueError(f"{text!r} is out of range") from exc


def parse_rfc3339(text: str) -> float:
    """Unix seconds of an RFC3339 timestamp with a zone (``Z`` or ``+02:00``); ValueError otherwise."""
    return parse_rfc3339_datetime(text).timestamp()
