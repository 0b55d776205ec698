"""The ``rollout:`` block of the plugin generator's input, parsed and checked into a frozen RolloutSpec.

The wire shape (every field but ``revision`` and ``waves`` optional)::

    rollout:
      revision: v2.3.0            # a tag, branch or commit: what to roll out
      waves:                      # in order; a cluster belongs to the first wave that selects it
      - {name: canary, labelSelector: {matchLabels: {tier: canary}}}
      - {name: eu, labelSelector: {matchLabels: {region: eu}}, maxUnavailable: 25%}
      - {name: rest}              # no selector: every cluster not in an earlier wave
      waveLabel: ""               # a cluster label whose value names a wave (before the selectors)
      bakeTime: 10m               # Synced and Healthy at the new revision this long before the next wave
      maxUnavailable: 1           # per wave: a count or a percentage of the wave
      windows: [{schedule: "0 22 * * *", duration: 3h, timeZone: Europe/Berlin}]
      rollback: false             # true: the revision may be one rolled out before

A wave may carry its own ``maxUnavailable`` and ``windows``. Values templated by a matrix generator
arrive as strings, so numbers may be strings too. Everything is bounded: a revision of at most 255
printable characters, at most 32 waves, 16 windows each.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NotRequired, TypedDict

from argocd_lifecycle.generators.rollout.errors import RolloutInputError
from argocd_lifecycle.generators.rollout.windows import Windows, WindowWire, parse_windows
from argocd_lifecycle.label_selector import LabelSelector, SelectorError, kind_of
from argocd_lifecycle.times import parse_duration

MAX_WAVES = 32
MAX_REVISION = 255
MAX_BAKE = 30 * 86400.0
_REVISION = re.compile(r"^[\x21-\x7e]+$")  # printable ASCII without spaces, as git refs and SHAs are
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_LABEL_KEY = re.compile(r"^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_PERCENT = re.compile(r"^([0-9]{1,3})%$")


class WaveWire(TypedDict):
    name: str
    labelSelector: NotRequired[dict[str, Any]]
    maxUnavailable: NotRequired[int | str]
    windows: NotRequired[list[WindowWire]]


class RolloutWire(TypedDict):
    revision: str
    waves: list[WaveWire]
    waveLabel: NotRequired[str]
    bakeTime: NotRequired[str]
    maxUnavailable: NotRequired[int | str]
    windows: NotRequired[list[WindowWire]]
    rollback: NotRequired[bool | str]


@dataclass(frozen=True)
class Budget:
    """``maxUnavailable``: a count, or a percentage of the wave (rounded down, at least one)."""

    count: int = 1
    percent: int = 0

    def of(self, size: int) -> int:
        if self.percent:
            return max(1, size * self.percent // 100)
        return self.count

    def __str__(self) -> str:
        return f"{self.percent}%" if self.percent else str(self.count)


@dataclass(frozen=True)
class Wave:
    name: str
    #: None: every cluster not in an earlier wave
    selector: LabelSelector | None = None
    budget: Budget | None = None
    windows: Windows | None = None


@dataclass(frozen=True)
class RolloutSpec:
    revision: str
    waves: tuple[Wave, ...]
    wave_label: str = ""
    bake_seconds: float = 0.0
    budget: Budget = field(default_factory=Budget)
    windows: Windows = field(default_factory=Windows)
    rollback: bool = False

    def budget_of(self, wave: int) -> Budget:
        return self.waves[wave].budget or self.budget

    def windows_of(self, wave: int) -> Windows:
        own = self.waves[wave].windows
        return own if own is not None else self.windows

    def wave_of(self, labels: Mapping[str, str]) -> int | None:
        """The index of the wave a cluster belongs to; None when no wave selects it (it keeps its revision)."""
        if self.wave_label:
            named = labels.get(self.wave_label)
            for i, wave in enumerate(self.waves):
                if wave.name == named:
                    return i
        for i, wave in enumerate(self.waves):
            if wave.selector is None or wave.selector.matches(labels):
                return i
        return None


_W = "input.parameters.rollout"
_FIELDS = ("revision", "waves", "waveLabel", "bakeTime", "maxUnavailable", "windows", "rollback")
_WAVE_FIELDS = ("name", "labelSelector", "maxUnavailable", "windows")


def parse_rollout(data: Any, where: str = _W) -> RolloutSpec:
    """Parse the wire form; every mistake is one RolloutInputError naming the field."""
    if not isinstance(data, Mapping):
        raise RolloutInputError(f"{where}: expected an object, got {kind_of(data)}")
    _known(data, _FIELDS, where)
    revision = data.get("revision")
    if not isinstance(revision, str) or not _REVISION.fullmatch(revision) or len(revision) > MAX_REVISION:
        raise RolloutInputError(
            f"{where}.revision: expected a tag, branch or commit (1 to {MAX_REVISION} printable characters, no spaces)"
        )
    waves = data.get("waves")
    if not isinstance(waves, list) or not waves:
        raise RolloutInputError(f"{where}.waves: expected a list of at least one wave, got {kind_of(waves)}")
    if len(waves) > MAX_WAVES:
        raise RolloutInputError(f"{where}.waves: at most {MAX_WAVES} waves, got {len(waves)}")
    parsed = tuple(_wave(w, f"{where}.waves[{i}]") for i, w in enumerate(waves))
    names = [w.name for w in parsed]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise RolloutInputError(f"{where}.waves[{i}].name: {name!r} names an earlier wave too")
    wave_label = data.get("waveLabel", "")
    if not isinstance(wave_label, str) or (wave_label and not _LABEL_KEY.fullmatch(wave_label)):
        raise RolloutInputError(f"{where}.waveLabel: expected a label key such as example.com/wave")
    bake = data.get("bakeTime", "0s")
    try:
        bake_seconds = parse_duration(bake, longest=MAX_BAKE) if isinstance(bake, str) else -1.0
    except ValueError as exc:
        raise RolloutInputError(f"{where}.bakeTime: {exc} (at most 30 days)") from None
    if bake_seconds < 0:
        raise RolloutInputError(f"{where}.bakeTime: expected a duration such as 10m, got {kind_of(bake)}")
    budget = _budget(data.get("maxUnavailable"), f"{where}.maxUnavailable") or Budget()
    return RolloutSpec(
        revision=revision,
        waves=parsed,
        wave_label=wave_label,
        bake_seconds=bake_seconds,
        budget=budget,
        windows=parse_windows(data.get("windows"), f"{where}.windows"),
        rollback=_bool(data.get("rollback"), f"{where}.rollback"),
    )


def _known(data: Mapping[str, Any], fields: tuple[str, ...], where: str) -> None:
    unknown = sorted(str(k) for k in set(data) - set(fields))
    if unknown:
        raise RolloutInputError(f"{where}: unknown field {unknown[0]!r} (expected {', '.join(fields)})")


def _wave(data: Any, where: str) -> Wave:
    if not isinstance(data, Mapping):
        raise RolloutInputError(f"{where}: expected an object, got {kind_of(data)}")
    _known(data, _WAVE_FIELDS, where)
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise RolloutInputError(f"{where}.name: expected a DNS label such as canary (at most 63 characters)")
    selector = data.get("labelSelector")
    try:
        parsed = None if selector is None else LabelSelector.parse(selector, f"{where}.labelSelector")
    except SelectorError as exc:
        raise RolloutInputError(exc.message) from None
    windows = data.get("windows")
    return Wave(
        name=name,
        selector=parsed,
        budget=_budget(data.get("maxUnavailable"), f"{where}.maxUnavailable"),
        windows=None if windows is None else parse_windows(windows, f"{where}.windows"),
    )


def _budget(value: Any, where: str) -> Budget | None:
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.isdigit() and len(value) <= 6:
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if not 1 <= value <= 100_000:
            raise RolloutInputError(f"{where}: expected at least 1 cluster, got {value}")
        return Budget(count=value)
    match = _PERCENT.fullmatch(value) if isinstance(value, str) else None
    if match is None or not 1 <= int(match.group(1)) <= 100:
        raise RolloutInputError(f"{where}: expected a count such as 1 or a percentage such as 25%")
    return Budget(percent=int(match.group(1)))


def _bool(value: Any, where: str) -> bool:
    if value is None or value == "":
        return False
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return bool(value == "true")
    raise RolloutInputError(f"{where}: expected true or false, got {kind_of(value)}")
