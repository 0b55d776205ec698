"""The timeline as an SVG chart drawn with matplotlib: lanes down, time across, spans as bars.

Warnings are red, merged Events are dashed spans between their first and last time, and time is
broken at long quiet gaps (``chart_layout``). Text is drawn as paths so the file looks the same
without our fonts; each dot carries the id ``mark-<lane>-<n>`` for scripts and tests.
"""

from __future__ import annotations

import io
from datetime import datetime, tzinfo
from typing import Any

# slow to import: the CLI imports this module only for ``-o svg``
import matplotlib
from matplotlib import dates as _dates
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from argocd_lifecycle.notifications.timeline import times
from argocd_lifecycle.notifications.timeline.chart_layout import (
    LABEL_GAP_PT,
    LABEL_PT,
    LEFT,
    PLOT_FRACTION,
    PLOT_WIDTH_PT,
    WIDTH_IN,
    Mark,
    Segment,
    layout,
    shown,
)
from argocd_lifecycle.notifications.timeline.labels import TIMES
from argocd_lifecycle.notifications.timeline.model import LANES, Lane, Timeline

#: matplotlib.dates carries no type hints
mdates: Any = _dates

COLORS = {
    Lane.OPERATION: "#3b6ea8",
    Lane.SYNC: "#7b5ea7",
    Lane.HEALTH: "#3a8f5c",
    Lane.RESOURCE: "#5b6b7f",
    Lane.CLUSTER: "#b08a2e",
    Lane.ROLLOUT: "#1f8a8a",
}
WARNING = "#c0392b"
ROW_IN = 0.28


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


def _time_axis(ax: Axes, seg: Segment, zone: tzinfo | None, previous: Segment | None) -> None:
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


def _draw(ax: Axes, mark: Mark, y: float, color: str, gid: str) -> None:
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
        shown(mark),
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
