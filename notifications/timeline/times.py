"""How the timeline shows times: local clock times and offsets between entries, to the second.

Parsing and RFC3339 text are ``argocd_lifecycle.times``'s, shared with the other parts.
"""

from __future__ import annotations

from datetime import datetime, tzinfo


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
