"""The timeline as an SVG chart drawn with matplotlib: lanes down, time across, spans as bars.

Long quiet stretches (hours between a deployment in ``status.history`` and this morning's
incident) would squeeze the story into a sliver, so the time axis is broken into segments at
gaps, each drawn at a readable scale. Labels are packed into extra rows of a lane when they
would overlap; same-looking entries of the same instant share one label (``Pod Started x3``).
Text is drawn as paths so the file looks the same without our fonts.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from typing import Any

# slow to import: the CLI imports this module only for ``-o svg``
import matplotlib
from matplotlib import dates as _dates
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from argocd_lifecycle.notifications.timeline import times
from argocd_lifecycle.notifications.timeline.labels import TIMES, grouped, label
from argocd_lifecycle.notifications.timeline.model import LANES, Entry, Lane, ObjectRef, Timeline

#: matplotlib.dates carries no type hints
mdates: Any = _dates

COLORS = {
    Lane.OPERATION: "#3b6ea8",
    Lane.SYNC: "#7b5ea7",
    Lane.HEALTH: "#3a8f5c",
    Lane.RESOURCE: "#5b6b7f",
    Lane.CLUSTER: "#b08a2e",
}
WARNING = "#c0392b"
WIDTH_IN = 13.0
ROW_IN = 0.28
LABEL_PT = 7.5
#: average glyph width of the label font, in em (DejaVu Sans, mixed case)
CHAR_EM = 0.6
LABEL_GAP_PT = 5.0
MAX_ROWS = 14
LEFT = 0.085
PLOT_FRACTION = 0.9
PLOT_WIDTH_PT = WIDTH_IN * 72 * PLOT_FRACTION
MAX_SEGMENTS = 5
MIN_GAP = timedelta(minutes=15)


@dataclass
class _Mark:
    """Entries drawn as one dot with one label: one label at one instant (``Pod Started x3``), then
    the steps the same objects took at that instant (``Pod Pulled · Created · Started x3``)."""

    entries: list[Entry]
    steps: list[str]
    row: int = 0

    @property
    def text(self) -> str:
        return " · ".join(self.steps)

    @property
    def start(self) -> datetime:
        return self.entries[0].time

    @property
    def end(self) -> datetime:
        return max(e.last_time for e in self.entries)

    @property
    def objects(self) -> set[ObjectRef]:
        return {e.object for e in self.entries}

    def near(self, other: Entry | _Mark, tolerance: timedelta) -> bool:
        mine, theirs = self.entries[0], other if isinstance(other, Entry) else other.entries[0]
        return (
            not mine.is_span
            and not theirs.is_span
            and mine.type == theirs.type
            and abs(theirs.time - mine.time) <= tolerance
        )


def segments(entries: Sequence[Entry]) -> list[tuple[datetime, datetime]]:
    """Time ranges to draw, split at the longest quiet gaps (above 15 min and a tenth of the whole)."""
    spans = sorted((e.time, e.last_time) for e in entries)
    merged: list[list[datetime]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    total = merged[-1][1] - merged[0][0]
    threshold = max(MIN_GAP, total / 10)
    gaps = sorted(
        ((merged[i + 1][0] - merged[i][1], i) for i in range(len(merged) - 1)),
        reverse=True,
    )
    cuts = sorted(i for gap, i in gaps[: MAX_SEGMENTS - 1] if gap > threshold)
    out, begin = [], 0
    for cut in [*cuts, len(merged) - 1]:
        out.append((merged[begin][0], merged[cut][1]))
        begin = cut + 1
    return out


def _marks(entries: Sequence[Entry], tolerance: timedelta) -> list[_Mark]:
    grouped_marks: list[_Mark] = []
    for entry in entries:
        text = label(entry)
        for mark in reversed(grouped_marks[-12:]):
            if mark.steps == [text] and mark.near(entry, tolerance):
                mark.entries.append(entry)
                break
        else:
            grouped_marks.append(_Mark([entry], [text]))
    marks: list[_Mark] = []
    for mark in grouped_marks:
        for earlier in reversed(marks[-12:]):
            if (
                earlier.objects == mark.objects
                and earlier.near(mark, tolerance)
                and earlier.entries[0].lane is Lane.RESOURCE
            ):
                kind = mark.entries[0].object.kind
                earlier.entries += mark.entries
                earlier.steps += [step.removeprefix(f"{kind} ") for step in mark.steps]
                break
        else:
            marks.append(mark)
    return marks


def _pack(marks: list[_Mark], seconds_per_pt: float) -> int:
    """Give each mark the first row free at its start; returns the rows used.

    Past ``MAX_ROWS`` a mark goes to an overflow row below, as a dot without a label (row -1).
    """
    busy: list[float] = []
    for mark in marks:
        start = mark.start.timestamp()
        end = max(mark.end.timestamp(), start) + (_label_pt(mark) + 8) * seconds_per_pt
        for row, until in enumerate(busy):
            if until <= start:
                busy[row] = end
                mark.row = row
                break
        else:
            if len(busy) < MAX_ROWS:
                busy.append(end)
                mark.row = len(busy) - 1
            else:
                mark.row = -1
    return max(len(busy), 1) + any(m.row < 0 for m in marks)


def _label_pt(mark: _Mark) -> float:
    return len(_shown(mark)) * LABEL_PT * CHAR_EM + LABEL_GAP_PT


def _shown(mark: _Mark) -> str:
    entry = mark.entries[0]
    objects = len(mark.objects)
    if objects > 1:
        return grouped(mark.text, objects)
    if len(mark.steps) == 1 and len(mark.entries) > 1:
        return grouped(mark.text, len(mark.entries))
    return grouped(mark.text, entry.count) if entry.timestamps_lost else mark.text


@dataclass
class _Segment:
    start: datetime
    end: datetime
    lanes: dict[Lane, list[_Mark]]
    share: float = 0.0
    hi: datetime = datetime.min
    rows: dict[Lane, int] = field(default_factory=dict)

    @property
    def span(self) -> float:
        return max((self.end - self.start).total_seconds(), 60.0)

    @property
    def lo(self) -> datetime:
        return self.start - timedelta(seconds=self.span * 0.03)

    def marks(self) -> list[_Mark]:
        return [mark for marks in self.lanes.values() for mark in marks]

    def fit(self) -> None:
        """Stretch the right end of the axis so that every label ends inside it."""
        width_pt = PLOT_WIDTH_PT * self.share
        needed = (self.end - self.lo).total_seconds() * 1.03
        for mark in self.marks():
            room = 1.0 - _label_pt(mark) / width_pt
            if room > 0.05:
                needed = max(needed, (mark.end - self.lo).total_seconds() / room)
        self.hi = self.lo + timedelta(seconds=needed)


def layout(entries: Sequence[Entry]) -> list[_Segment]:
    """Segments with their share of the width, marks grouped and packed into rows."""
    segs = []
    for a, b in segments(entries):
        tolerance = timedelta(seconds=max((b - a).total_seconds(), 60.0) * 0.006)
        lanes = {lane: _marks([e for e in entries if e.lane is lane and a <= e.time <= b], tolerance) for lane in LANES}
        segs.append(_Segment(a, b, lanes))
    total = sum(s.span for s in segs)
    for seg in segs:
        widest = max((_label_pt(m) for m in seg.marks()), default=0.0)
        seg.share = max(seg.span / total, 0.12, 1.6 * widest / PLOT_WIDTH_PT)
    norm = sum(s.share for s in segs)
    for seg in segs:
        seg.share /= norm
        seg.fit()
        seconds_per_pt = (seg.hi - seg.lo).total_seconds() / (PLOT_WIDTH_PT * seg.share)
        seg.rows = {lane: _pack(marks, seconds_per_pt) for lane, marks in seg.lanes.items()}
    return segs


def render(timeline: Timeline, tz: tzinfo | None) -> str:
    zone = tz or datetime.now().astimezone().tzinfo
    title = f"{timeline.app} ({timeline.namespace})"
    entries = list(timeline.entries)
    with matplotlib.rc_context({"svg.hashsalt": "argocd-lifecycle", "svg.fonttype": "path", "font.size": 9}):
        if not entries:
            fig = Figure(figsize=(WIDTH_IN, 1.5))
            fig.text(0.5, 0.5, f"{title}: no entries", ha="center", va="center", fontsize=12)
            return _svg(fig, title)
        segs = layout(entries)
        lane_rows = {lane: max(seg.rows[lane] for seg in segs) for lane in LANES}
        top: dict[Lane, float] = {}
        y = 0.0
        for lane in LANES:
            top[lane] = y
            y += lane_rows[lane] + 0.4
        height = 1.7 + ROW_IN * y
        fig = Figure(figsize=(WIDTH_IN, height))
        axes = fig.subplots(
            1,
            len(segs),
            sharey=True,
            squeeze=False,
            gridspec_kw={"width_ratios": [s.share for s in segs], "wspace": 0.05},
        )[0]
        fig.subplots_adjust(left=LEFT, right=LEFT + PLOT_FRACTION, top=1 - 0.6 / height, bottom=0.9 / height)
        hidden = 0
        drawn: dict[Lane, int] = {}
        for index, (ax, seg) in enumerate(zip(axes, segs, strict=True)):
            ax.set_ylim(y, 0)
            for n, lane in enumerate(LANES):
                band = (top[lane], top[lane] + lane_rows[lane] + 0.4)
                ax.axhspan(*band, color="#f3f4f6" if n % 2 == 0 else "white", zorder=0, lw=0)
                for mark in seg.lanes[lane]:
                    hidden += mark.row < 0
                    row = mark.row if mark.row >= 0 else lane_rows[lane] - 1
                    drawn[lane] = drawn.get(lane, 0) + 1
                    gid = f"mark-{lane.value}-{drawn[lane]}"
                    _draw(ax, mark, top[lane] + 0.2 + row + 0.5, COLORS[lane], gid)
            _time_axis(ax, seg, zone, segs[index - 1] if index else None)
        axes[0].set_yticks([top[lane] + (lane_rows[lane] + 0.4) / 2 for lane in LANES])
        axes[0].set_yticklabels([lane.value for lane in LANES], fontsize=9.5, fontweight="bold")
        for tick, lane in zip(axes[0].get_yticklabels(), LANES, strict=True):
            tick.set_color(COLORS[lane])
        axes[0].tick_params(axis="y", length=0)
        fig.suptitle(
            f"{title} — {len(entries)} entries from {times.local(entries[0].time, zone)}",
            x=LEFT,
            ha="left",
            fontsize=11,
            fontweight="bold",
        )
        _legend(fig, hidden)
        return _svg(fig, title)


def _time_axis(ax: Axes, seg: _Segment, zone: tzinfo | None, previous: _Segment | None) -> None:
    ax.set_xlim(_num(seg.lo), _num(seg.hi))
    ticks = max(5, int(PLOT_WIDTH_PT * seg.share / 70))
    locator = mdates.AutoDateLocator(tz=zone, minticks=2, maxticks=ticks)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, tz=zone))
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(axis="x", color="#d1d5db", lw=0.6, zorder=1)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    if previous is None:
        return
    ax.tick_params(axis="y", left=False)
    gap = times.offset(previous.end, seg.start).lstrip("+")
    ax.annotate(
        f"{gap} later",
        xy=(0, 1),
        xycoords="axes fraction",
        xytext=(2, 3),
        textcoords="offset points",
        fontsize=7.5,
        color="#6b7280",
        va="bottom",
    )
    ax.axvline(_num(seg.lo), color="#9ca3af", lw=1.2, ls=(0, (1, 2)), zorder=1)


def _legend(fig: Figure, hidden: int) -> None:
    handles = [
        Line2D([], [], marker="o", ls="", color=COLORS[Lane.RESOURCE], label="event"),
        Line2D([], [], marker="o", ls="", color=WARNING, label="warning"),
        Line2D([], [], lw=5, color=COLORS[Lane.OPERATION], label="operation / deployment"),
        Line2D(
            [],
            [],
            lw=1.6,
            ls=(0, (2, 2)),
            marker="|",
            color=COLORS[Lane.RESOURCE],
            label=f"merged Event {TIMES}n (times between first and last lost)",
        ),
    ]
    fig.legend(handles=handles, loc="lower left", bbox_to_anchor=(LEFT, 0), ncol=4, fontsize=8, frameon=False)
    if hidden:
        fig.text(
            0.99,
            0.01,
            f"{hidden} label{'s' if hidden > 1 else ''} left out for room (bottom row of a lane): "
            "-o table lists every entry",
            ha="right",
            va="bottom",
            fontsize=7.5,
            color="#6b7280",
        )


def _num(value: datetime) -> float:
    return float(mdates.date2num(value))


def _draw(ax: Axes, mark: _Mark, y: float, color: str, gid: str) -> None:
    entry = mark.entries[0]
    tone = WARNING if any(e.is_warning for e in mark.entries) else color
    x0, x1 = _num(mark.start), _num(mark.end)
    if entry.timestamps_lost and entry.is_span:
        ax.hlines(y, x0, x1, colors=tone, lw=1.6, linestyles=(0, (2, 2)), zorder=3)
        ax.plot([x0, x1], [y, y], ls="", marker="|", ms=9, mew=1.6, color=tone, zorder=4)
    elif entry.is_span:
        ax.hlines(y, x0, x1, colors=tone, lw=6, alpha=0.85, zorder=3)
    # the id lets tests and scripts find each mark in the SVG
    ax.plot([x0], [y], ls="", marker="o", ms=5.5, color=tone, mec="white", mew=0.6, zorder=5, gid=gid)
    if mark.row < 0:
        return
    ax.annotate(
        _shown(mark),
        xy=(x1, y),
        xytext=(LABEL_GAP_PT, 0),
        textcoords="offset points",
        va="center",
        fontsize=LABEL_PT,
        color=tone if tone == WARNING else "#1f2937",
        annotation_clip=False,
        clip_on=True,
        zorder=6,
    )


def _svg(fig: Figure, title: str) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Title": title, "Date": None, "Creator": "argocd-lifecycle"})
    return buf.getvalue()
