"""Kubernetes timestamps (Time and MicroTime), ``--since`` durations, and how times are printed."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo

from argocd_lifecycle.errors import UsageError

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(d|h|m|s)")
_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}


def parse_time(value: object) -> datetime | None:
    """An RFC3339 ``Time`` (``...Z``) or ``MicroTime`` (``....123456Z``) as an aware UTC datetime.

    None for null, empty and Go's zero time (``0001-01-01T00:00:00Z``), which is how an unset
    MicroTime is serialised. Raises ValueError for any other text.
    """
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"expected a timestamp string, got {type(value).__name__}")
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    if parsed.tzinfo is None:
        raise ValueError(f"timestamp {value!r} has no time zone")
    parsed = parsed.astimezone(UTC)
    return None if parsed.year == 1 else parsed


def parse_duration(text: str) -> timedelta:
    """``2h``, ``90m``, ``1h30m``, ``45s``, ``7d``: the ``--since`` values (Go-style, plus days)."""
    compact = text.strip().lower()
    pos, total = 0, 0.0
    for m in _DURATION.finditer(compact):
        if m.start() != pos:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if not compact or pos != len(compact) or total <= 0:
        raise UsageError(f"--since {text!r}: not a duration (examples: 2h, 90m, 1h30m, 7d)")
    return timedelta(seconds=total)


def rfc3339(value: datetime) -> str:
    """UTC, ``Z``-suffixed; microseconds only when known."""
    value = value.astimezone(UTC)
    spec = "microseconds" if value.microsecond else "seconds"
    return value.replace(tzinfo=None).isoformat(timespec=spec) + "Z"


def local(value: datetime, tz: tzinfo | None) -> str:
    """``2026-03-04 15:02:11 +01:00`` in ``tz`` (the machine's zone when None), to the second."""
    shown = value.astimezone(tz)
    offset = shown.strftime("%z")
    return shown.strftime("%Y-%m-%d %H:%M:%S ") + f"{offset[:3]}:{offset[3:]}"


def clock(value: datetime, tz: tzinfo | None) -> str:
    return value.astimezone(tz).strftime("%H:%M:%S")


def offset(start: datetime, end: datetime) -> str:
    """``+0s``, ``+42s``, ``+3m05s``, ``+2h03m``, ``+3d04h`` from ``start`` to ``end``, to the second.

    Both ends are cut to whole seconds first, as Kubernetes stores most of its timestamps.
    """
    seconds = int(end.timestamp()) - int(start.timestamp())
    sign = "-" if seconds < 0 else "+"
    seconds = abs(seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{sign}{days}d{hours:02d}h"
    if hours:
        return f"{sign}{hours}h{minutes:02d}m"
    if minutes:
        return f"{sign}{minutes}m{secs:02d}s"
    return f"{sign}{secs}s"
