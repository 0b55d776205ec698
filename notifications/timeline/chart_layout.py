"""Where the chart puts things: time segments, marks (grouped entries) and rows, in points.

Long quiet stretches (hours between a deployment in ``status.history`` and this morning's
incident) would squeeze the story into a sliver, so time is cut into segments at gaps, each
given the width it needs. Entries of one instant that read alike share a mark and a label
(``Pod Started x3``, ``Pod Pulled · Created · Started``); labels that would overlap go to further
rows of their lane.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from argocd_lifecycle.notifications.timeline.labels import grouped, label
from argocd_lifecycle.notifications.timeline.model import LANES, Entry, Lane, ObjectRef

LABEL_PT = 7.5
#: average glyph width of the label font, in em (DejaVu Sans, mixed case)
CHAR_EM = 0.6
LABEL_GAP_PT = 5.0
MAX_ROWS = 14
WIDTH_IN = 13.0
LEFT = 0.085
PLOT_FRACTION = 0.9
PLOT_WIDTH_PT = WIDTH_IN * 72 * PLOT_FRACTION
MAX_SEGMENTS = 5
MIN_GAP = timedelta(minutes=15)


@dataclass
class Mark:
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

    def near(self, other: Entry | Mark, tolerance: timedelta) -> bool:
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


def _marks(entries: Sequence[Entry], tolerance: timedelta) -> list[Mark]:
    grouped_marks: list[Mark] = []
    for entry in entries:
        text = label(entry)
        for mark in reversed(grouped_marks[-12:]):
            if mark.steps == [text] and mark.near(entry, tolerance):
                mark.entries.append(entry)
                break
        else:
            grouped_marks.append(Mark([entry], [text]))
    marks: list[Mark] = []
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


def _pack(marks: list[Mark], seconds_per_pt: float) -> int:
    """Give each mark the first row free at its start; returns the rows used.

    Past ``MAX_ROWS`` a mark goes to an overflow row below, as a dot without a label (row -1).
    """
    busy: list[float] = []
    for mark in marks:
        start = mark.start.timestamp()
        end = max(mark.end.timestamp(), start) + (label_pt(mark) + 8) * seconds_per_pt
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


def label_pt(mark: Mark) -> float:
    return len(shown(mark)) * LABEL_PT * CHAR_EM + LABEL_GAP_PT


def shown(mark: Mark) -> str:
    entry = mark.entries[0]
    objects = len(mark.objects)
    if objects > 1:
        return grouped(mark.text, objects)
    if len(mark.steps) == 1 and len(mark.entries) > 1:
        return grouped(mark.text, len(mark.entries))
    return grouped(mark.text, entry.count) if entry.timestamps_lost else mark.text


@dataclass
class Segment:
    start: datetime
    end: datetime
    lanes: dict[Lane, list[Mark]]
    share: float = 0.0
    hi: datetime = datetime.min
    rows: dict[Lane, int] = field(default_factory=dict)

    @property
    def span(self) -> float:
        return max((self.end - self.start).total_seconds(), 60.0)

    @property
    def lo(self) -> datetime:
        return self.start - timedelta(seconds=self.span * 0.03)

    def marks(self) -> list[Mark]:
        return [mark for marks in self.lanes.values() for mark in marks]

    def fit(self) -> None:
        """Stretch the right end of the axis so that every label ends inside it."""
        width_pt = PLOT_WIDTH_PT * self.share
        needed = (self.end - self.lo).total_seconds() * 1.03
        for mark in self.marks():
            room = 1.0 - label_pt(mark) / width_pt
            if room > 0.05:
                needed = max(needed, (mark.end - self.lo).total_seconds() / room)
        self.hi = self.lo + timedelta(seconds=needed)


def layout(entries: Sequence[Entry]) -> list[Segment]:
    """Segments with their share of the width, marks grouped and packed into rows."""
    segs = []
    for a, b in segments(entries):
        tolerance = timedelta(seconds=max((b - a).total_seconds(), 60.0) * 0.006)
        lanes = {lane: _marks([e for e in entries if e.lane is lane and a <= e.time <= b], tolerance) for lane in LANES}
        segs.append(Segment(a, b, lanes))
    total = sum(s.span for s in segs)
    for seg in segs:
        widest = max((label_pt(m) for m in seg.marks()), default=0.0)
        seg.share = max(seg.span / total, 0.12, 1.6 * widest / PLOT_WIDTH_PT)
    norm = sum(s.share for s in segs)
    for seg in segs:
        seg.share /= norm
        seg.fit()
        seconds_per_pt = (seg.hi - seg.lo).total_seconds() / (PLOT_WIDTH_PT * seg.share)
        seg.rows = {lane: _pack(marks, seconds_per_pt) for lane, marks in seg.lanes.items()}
    return segs
