"""Maintenance windows as Argo CD writes its sync windows: a cron schedule, a duration and a time zone.

A window is open from each time its schedule matches (in its time zone) for its duration. ``allow``
windows say when a cluster may take a new revision (none: any time); a ``deny`` window closes it
whatever the allow windows say. Written in the rollout input (per wave) or, per cluster, as a JSON
list in the ``argocd-lifecycle.io/maintenance-windows`` annotation of its Secret. A schedule is
checked once by cronsim (one that can never match, 30 February, is refused there); finding the last
start before now walks back at most a year, so a check is bounded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NotRequired, TypedDict
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError

from argocd_lifecycle.generators.rollout.errors import RolloutInputError
from argocd_lifecycle.label_selector import kind_of
from argocd_lifecycle.model import PREFIX
from argocd_lifecycle.times import parse_duration

#: per cluster, on its Secret: a JSON list of windows, as in the rollout input
WINDOWS_ANNOTATION = PREFIX + "maintenance-windows"
MAX_WINDOWS = 16
MAX_SCHEDULE = 100
MAX_ANNOTATION = 4096
#: a window longer than a week is a policy, not a window
MAX_DURATION = 7 * 86400.0
_ZONE = re.compile(r"^[A-Za-z0-9_+\-]+(?:/[A-Za-z0-9_+\-]+){0,3}$")


class WindowWire(TypedDict):
    schedule: str
    duration: str
    timeZone: NotRequired[str]
    kind: NotRequired[str]


@dataclass(frozen=True)
class Window:
    schedule: str
    duration: timedelta
    zone: str = "UTC"
    deny: bool = False

    def open_at(self, now: datetime) -> bool:
        local = now.astimezone(ZoneInfo(self.zone)).replace(second=0, microsecond=0)
        try:  # the last start at or before now; cronsim walks back minute fields, bounded by the year
            start = next(CronSim(self.schedule, local + timedelta(minutes=1), reverse=True))
        except (StopIteration, CronSimError):
            return False
        return start <= now < start + self.duration


@dataclass(frozen=True)
class Windows:
    windows: tuple[Window, ...] = ()

    def open_at(self, now: datetime) -> bool:
        """No allow window, or inside one; and inside no deny window."""
        allows = [w for w in self.windows if not w.deny]
        if any(w.open_at(now) for w in self.windows if w.deny):
            return False
        return not allows or any(w.open_at(now) for w in allows)


def parse_windows(data: Any, where: str) -> Windows:
    if data is None:
        return Windows()
    if not isinstance(data, list):
        raise RolloutInputError(f"{where}: expected a list of windows, got {kind_of(data)}")
    if len(data) > MAX_WINDOWS:
        raise RolloutInputError(f"{where}: at most {MAX_WINDOWS} windows, got {len(data)}")
    return Windows(tuple(_window(item, f"{where}[{i}]") for i, item in enumerate(data)))


def cluster_windows(annotations: Mapping[str, str]) -> Windows | None:
    """The cluster's own windows from its Secret; None when it has none. Raises RolloutInputError."""
    text = annotations.get(WINDOWS_ANNOTATION)
    if text is None:
        return None
    where = f"annotation {WINDOWS_ANNOTATION}"
    if len(text) > MAX_ANNOTATION:
        raise RolloutInputError(f"{where}: longer than {MAX_ANNOTATION} characters")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: "[[[[..." within the size bound
        raise RolloutInputError(f"{where}: not a JSON list of windows") from None
    return parse_windows(data, where)


def _window(item: Any, where: str) -> Window:
    if not isinstance(item, dict):
        raise RolloutInputError(f"{where}: expected an object, got {kind_of(item)}")
    unknown = sorted(set(item) - {"schedule", "duration", "timeZone", "kind"})
    if unknown:
        raise RolloutInputError(f"{where}: unknown field {unknown[0]!r} (expected schedule, duration, timeZone, kind)")
    schedule = item.get("schedule")
    if not isinstance(schedule, str) or not schedule.strip() or len(schedule) > MAX_SCHEDULE:
        raise RolloutInputError(f"{where}.schedule: expected a cron schedule such as '0 22 * * 1-5'")
    zone = _zone(item.get("timeZone", "UTC"), f"{where}.timeZone")
    try:
        CronSim(schedule, datetime.now(ZoneInfo(zone)))
    except CronSimError as exc:
        raise RolloutInputError(f"{where}.schedule: {schedule!r} is not a cron schedule ({exc})") from None
    duration = item.get("duration")
    try:
        seconds = parse_duration(duration, longest=MAX_DURATION) if isinstance(duration, str) else -1.0
    except ValueError as exc:
        raise RolloutInputError(f"{where}.duration: {exc} (at most 7 days)") from None
    if seconds <= 0:
        raise RolloutInputError(f"{where}.duration: expected a duration such as 3h")
    kind = item.get("kind", "allow")
    if kind not in ("allow", "deny"):
        raise RolloutInputError(f"{where}.kind: expected allow or deny, got {kind!r}")
    return Window(schedule.strip(), timedelta(seconds=seconds), zone, kind == "deny")


def _zone(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _ZONE.fullmatch(value) or ".." in value:
        raise RolloutInputError(f"{where}: expected a time zone such as Europe/Berlin")
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise RolloutInputError(f"{where}: {value!r} is not a known time zone") from None
    return value
