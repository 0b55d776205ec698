"""The timeline as an aligned terminal table and as Markdown for incident reports."""

from __future__ import annotations

from datetime import tzinfo

from argocd_lifecycle.notifications.timeline import times
from argocd_lifecycle.notifications.timeline.model import Entry, Timeline

LOST = "Kubernetes kept only the first and last time of a merged Event: the occurrences in between are lost"


def _count(entry: Entry) -> str:
    return f"{entry.count}*" if entry.timestamps_lost else str(entry.count)


def _until(entry: Entry, tz: tzinfo | None) -> str:
    if not entry.is_span:
        return ""
    return f"{times.clock(entry.last_time, tz)} ({times.offset(entry.time, entry.last_time)})"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def summary(timeline: Timeline, tz: tzinfo | None) -> str:
    parts = [f"Application {timeline.namespace}/{timeline.app}"]
    dest = timeline.destination
    if dest.server or dest.name:
        parts.append(f"-> {dest.server or dest.name} namespace {dest.namespace or '-'}")
    n = len(timeline.entries)
    parts.append(f"{n} entr{'y' if n == 1 else 'ies'}")
    if timeline.entries:
        first = timeline.entries[0].time
        last = max(e.last_time for e in timeline.entries)
        parts.append(f"{times.local(first, tz)} .. {times.local(last, tz)} ({times.offset(first, last)})")
    if timeline.window.since:
        parts.append(f"window {timeline.window.since}")
    return ", ".join(parts)


HEADERS = ("TIME", "OFFSET", "LANE", "REASON", "OBJECT", "UNTIL", "COUNT", "SOURCE", "MESSAGE")


def table(timeline: Timeline, tz: tzinfo | None) -> str:
    first = timeline.first_time
    rows = [
        (
            times.local(e.time, tz),
            times.offset(first, e.time) if first else "",
            e.lane.value,
            e.reason,
            str(e.object),
            _until(e, tz),
            _count(e),
            e.source,
            _one_line(e.message),
        )
        for e in timeline.entries
    ]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADERS)]

    def line(cells: tuple[str, ...]) -> str:
        padded = [c.ljust(w) for c, w in zip(cells[:-1], widths, strict=False)]
        return "  ".join([*padded, cells[-1]]).rstrip()

    out = [summary(timeline, tz), "", line(HEADERS), *(line(r) for r in rows)]
    if any(e.timestamps_lost for e in timeline.entries):
        out += ["", f"* {LOST}."]
    return "\n".join(out) + "\n"


def _md(text: str) -> str:
    return _one_line(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")


def _code(text: str) -> str:
    return "`" + text.replace("`", "'") + "`"


def markdown(timeline: Timeline, tz: tzinfo | None) -> str:
    first = timeline.first_time
    out = [f"## Timeline of {_code(timeline.app)} ({_code(timeline.namespace)})", "", _md(summary(timeline, tz)), ""]
    out += ["| Time | Offset | Lane | Reason | Object | Until | Count | Source | Message |", "|" + "---|" * 9]
    for e in timeline.entries:
        count = f"{e.count}\\*" if e.timestamps_lost else str(e.count)
        cells = [
            times.local(e.time, tz),
            times.offset(first, e.time) if first else "",
            e.lane.value,
            f"**{_md(e.reason)}**" if e.is_warning else _md(e.reason),
            _code(str(e.object)),
            _until(e, tz),
            count,
            _md(e.source),
            _md(e.message),
        ]
        out.append("| " + " | ".join(cells) + " |")
    if any(e.timestamps_lost for e in timeline.entries):
        out += ["", f"\\* {LOST}."]
    if timeline.notes:
        out += ["", *(f"> note: {_md(n)}" for n in timeline.notes)]
    out.append("")
    return "\n".join(out)
