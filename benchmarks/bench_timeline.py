"""Timeline from a large support bundle: our read + build + render against the bare JSON parse, side by side.

The bundle is the recorded failed-sync story with its destination namespace grown to N Events
(copies of the recorded resource Events, renamed and shifted in time, as a busy namespace has).
- floor:  ``json.loads`` of every file (what any reader must pay)
- ours:   ``read_files`` + ``gather`` + ``build`` (every Event read, classified, matched, ordered)
- then each output on the built timeline: table, json, markdown, and svg (matplotlib)

Runs alternate (floor, ours, floor, ...) so load drifts hit both sides alike. Prints medians and ratios.
Usage: .venv/bin/python benchmarks/bench_timeline.py [--events N] [--runs N] [--smoke]
``--smoke`` runs the same code on 200 Events once (seconds; what `make test` runs so the script cannot
rot); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from argocd_lifecycle.notifications.timeline import render_json, render_svg, render_text
from argocd_lifecycle.notifications.timeline.build import Request, build
from argocd_lifecycle.notifications.timeline.files import gather, read_files

STORY = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "timeline" / "failed-sync"


def grow(folder: Path, events: int) -> list[Path]:
    """Write the story with ``events`` resource Events (half the app's, half another workload's)."""
    base = json.loads((STORY / "events-payments.json").read_text())["items"]
    items = []
    start = datetime(2026, 3, 4, 9, 0, tzinfo=UTC)
    for i in range(events):
        item = copy.deepcopy(base[i % len(base)])
        when = (start + timedelta(seconds=i * 0.25)).strftime("%Y-%m-%dT%H:%M:%SZ")
        item["firstTimestamp"] = item["lastTimestamp"] = when
        item["metadata"]["name"] = f"bench-{i}.{i:x}"
        if i % 2:  # a neighbour's Pods: read, then left out
            item["involvedObject"]["name"] = f"ledger-7c9d6f5b8-{i:05d}"
        items.append(item)
    grown = folder / "events-payments.json"
    grown.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return [STORY / "app.json", STORY / "events-argocd.json", STORY / "cluster-secrets.json", grown]


def timed(fn: Callable[[], object]) -> float:
    began = time.perf_counter()
    fn()
    return time.perf_counter() - began


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--smoke", action="store_true", help="tiny bundle, one run: checks the script still works")
    args = parser.parse_args()
    if args.smoke:
        args.events, args.runs = 200, 1
    svg_runs = min(3, args.runs)
    request = Request(app="payments", namespace="argocd", include_resources=True)
    with tempfile.TemporaryDirectory() as tmp:
        files = grow(Path(tmp), args.events)
        size = sum(p.stat().st_size for p in files) / 1e6

        def floor() -> object:
            return [json.loads(p.read_bytes()) for p in files]

        def ours() -> object:
            return build(request, gather(read_files(files), request))

        floors, builds = [], []
        for _ in range(args.runs):
            floors.append(timed(floor))
            builds.append(timed(ours))
        timeline = build(request, gather(read_files(files), request))
        outputs = {
            "table": lambda: render_text.table(timeline, UTC),
            "json": lambda: render_json.render(timeline),
            "markdown": lambda: render_text.markdown(timeline, UTC),
        }
        rendered = {name: median_ms([timed(fn) for _ in range(args.runs)]) for name, fn in outputs.items()}
        small = build(Request(app="payments", namespace="argocd", include_resources=True), gather(
            read_files([STORY / p for p in ("app.json", "events-argocd.json", "events-payments.json",
                                             "cluster-secrets.json")]), request))  # fmt: skip
        svg_small = median_ms([timed(lambda: render_svg.render(small, UTC)) for _ in range(svg_runs)])
        svg_big = median_ms([timed(lambda: render_svg.render(timeline, UTC)) for _ in range(svg_runs)])
    f, o = median_ms(floors), median_ms(builds)
    print(
        f"bundle: {args.events} resource Events + the story ({size:.1f} MB JSON), {len(timeline.entries)} entries kept"
    )
    print(f"json.loads only (floor)       {f:9.1f} ms")
    print(
        f"read + classify + build       {o:9.1f} ms   x{o / f:.2f} the floor   {args.events / o * 1000:,.0f} Events/s"
    )
    for name, ms in rendered.items():
        print(f"render {name:<22} {ms:9.1f} ms")
    print(f"render svg, the story ({len(small.entries)} entries) {svg_small:9.1f} ms")
    print(f"render svg, {len(timeline.entries)} entries     {svg_big:9.1f} ms")


if __name__ == "__main__":
    main()
