"""Receiver ingest: `argocd-lifecycle receiver serve` (SQLite state, de-duplication on) against a
minimal Starlette endpoint that accepts and discards (the ceiling), side by side in one run.

Both run as uvicorn subprocesses with the same settings. The load is Argo CD webhook bodies with a
bearer token, half of them repeats of a recent event (so the dedupe path and the enqueue path both
run). Two measurements per server, alternating servers each round:
- saturation: 32 keep-alive connections sending back to back -> events/s;
- fixed rate: 2,000 events/s offered open-loop for a few seconds -> p50/p99 latency, measured from
  each request's scheduled send time (so queueing behind a slow request is counted, not hidden).
Deliveries go to a Slack-type sink at Slack's 1 message/s per webhook, so the outbox grows as it
would in an alert storm; ingest is what is measured. The server's own CPU time per event (user +
system, from /proc) is printed too: unlike events/s it hardly depends on what else the shared
machine runs, and 1e6 / (CPU us per event) is the rate one dedicated core would sustain.

``--stages`` measures instead where the receiver's CPU per event goes, in one process with no client
and no sockets (the servers' protocol objects fed the same raw requests, 32 in flight as in the
saturation run): the ceiling, then cumulative runs that each add one stage (core/http's connection
deadlines; the ingest route's HTTP layer with a handler that answers at once; the JSON parse, wire
checks and event; the pipeline and its SQLite state), then one cProfile run of the receiver as served,
its own time grouped by the code it runs in.
Usage: .venv/bin/python benchmarks/bench_receiver.py [--events N] [--rounds N] [--stages] [--smoke]
``--smoke`` runs the same code, both measurements, with 200 events for one round (seconds; what
`make test` runs so the script cannot rot); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import logging
import pstats
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from argocd_lifecycle.http import server
from argocd_lifecycle.http.body import request_body
from argocd_lifecycle.http.endpoints import Endpoint, Handler
from argocd_lifecycle.http.protocol import LimitedHttpProtocol
from argocd_lifecycle.http.server import ServerSettings, uvicorn_config
from argocd_lifecycle.http.service import build_app as build_service_app
from argocd_lifecycle.notifications.receiver import config as receiver_config
from argocd_lifecycle.notifications.receiver import events, wire
from argocd_lifecycle.notifications.receiver.app import INGEST, Receiver, build_app
from argocd_lifecycle.notifications.receiver.openapi import INFO
from argocd_lifecycle.notifications.receiver.stores import open_state

T = TypeVar("T")
REPO = Path(__file__).resolve().parents[1]
CLI = str(REPO / ".venv" / "bin" / "argocd-lifecycle")
TOKEN = "bench-token"
# the ceiling's app; the subprocess runs it under uvicorn, --stages builds it in-process
BASELINE_APP = """
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

async def accept(request):
    await request.body()
    return JSONResponse({"status": "queued"}, status_code=202)

app = Starlette(routes=[Route("/v1/events/argocd", accept, methods=["POST"])])
"""
BASELINE = f"""
import sys, uvicorn
{BASELINE_APP}
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", access_log=False)
"""


def ratio(top: float, bottom: float, spec: str = ".2f") -> str:
    """``top / bottom``, or n/a: a short run can measure 0 us of CPU (/proc counts 10 ms ticks)."""
    width = spec.partition(".")[0]
    return format(top / bottom, spec) if bottom else format("n/a", f">{width or 0}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc; clock ticks are 100 Hz)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def requests(count: int, seed: int) -> list[bytes]:
    """Raw HTTP/1.1 requests; about half repeat one of the last 100 events (duplicates)."""
    rng = random.Random(seed)
    recent: list[bytes] = []
    out: list[bytes] = []
    for n in range(count):
        if recent and rng.random() < 0.5:
            body = rng.choice(recent)
        else:
            event = {
                "trigger": "on-sync-failed",
                "severity": "warning",
                "app": f"app-{n % 500}",
                "namespace": "argocd",
                "project": "default",
                "cluster": f"cluster-{n % 20}",
                "clusterPhase": "Ready",
                "revision": f"{seed:04x}{n:036x}",
                "syncStatus": "OutOfSync",
                "health": "Degraded",
                "message": "one or more objects failed to apply",
            }
            body = json.dumps(event).encode()
            recent = [*recent[-99:], body]
        head = (
            f"POST /v1/events/argocd HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        out.append(head.encode() + body)
    return out


async def exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, raw: bytes) -> None:
    writer.write(raw)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    await reader.readexactly(length)
    if status != 202:
        raise RuntimeError(f"unexpected status {status}")


async def saturate(port: int, reqs: list[bytes], connections: int = 32) -> float:
    queue = iter(reqs)

    async def worker() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for raw in queue:
            await exchange(reader, writer, raw)
        writer.close()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(connections)))
    return len(reqs) / (time.perf_counter() - start)


async def fixed_rate(port: int, reqs: list[bytes], rate: float, connections: int = 64) -> tuple[float, list[float]]:
    pool: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = asyncio.Queue()
    for _ in range(connections):
        pool.put_nowait(await asyncio.open_connection("127.0.0.1", port))
    latencies: list[float] = []
    loop = asyncio.get_running_loop()
    start = loop.time() + 0.05

    async def one(i: int, raw: bytes) -> None:
        scheduled = start + i / rate
        await asyncio.sleep(max(0.0, scheduled - loop.time()))
        conn = await pool.get()
        await exchange(*conn, raw)
        pool.put_nowait(conn)
        latencies.append(loop.time() - scheduled)

    await asyncio.gather(*(one(i, raw) for i, raw in enumerate(reqs)))
    achieved = len(reqs) / (loop.time() - start)
    while not pool.empty():
        pool.get_nowait()[1].close()
    return achieved, latencies


def bounded(measurement: Coroutine[Any, Any, T], what: str, events: int) -> T:
    """Run one measurement with a deadline: a server that stops answering ends the run with a message
    instead of a hang (a healthy one needs well under a millisecond per event)."""
    try:
        return asyncio.run(asyncio.wait_for(measurement, timeout=30 + events / 100))  # noqa: TID251 - no loop around it
    except TimeoutError:
        raise SystemExit(f"{what}: {events} events did not complete within {30 + events / 100:.0f}s") from None


def wait_ready(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("server did not start")


def write_config(folder: Path) -> Path:
    """The receiver's config (and its token and secret files) in ``folder``."""
    (folder / "token").write_text(TOKEN)
    (folder / "hmac").write_text("bench-hmac")
    config = folder / "receiver.yaml"
    config.write_text(
        "inbound: {tokenFile: token, lifecycleSecretFile: hmac}\n"
        "argocdUrl: https://argocd.example\n"
        "dedupe: {window: 30m}\n"
        "flap: {threshold: 1000}\n"
        "receivers: [{name: ops-slack, type: slack, url: 'http://127.0.0.1:9/slack'}]\n"
        "routes: [{match: {}, receiver: ops-slack}]\n"
    )
    return config


def start_receiver(folder: Path) -> tuple[subprocess.Popen[bytes], int]:
    config = write_config(folder)
    port = free_port()
    argv = [CLI, "receiver", "serve", "--config", str(config), "--listen", f"127.0.0.1:{port}"]
    argv += ["--state", f"sqlite:///{folder}/state.db", "--log-level", "warning"]
    proc = subprocess.Popen(argv, cwd=folder, stderr=subprocess.DEVNULL)
    wait_ready(port, proc)
    return proc, port


def start_baseline() -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-c", BASELINE, str(port)])
    wait_ready(port, proc)
    return proc, port


# --- --stages: where the receiver's CPU per event goes, in-process -------------------------------
# Stages by the file a function is defined in (first match wins); a C function (json's scanner, an
# SQLite call, os.stat) counts for the stage of the Python code that called it.
STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("HTTP parsing + ASGI server (uvicorn, httptools)", ("/uvicorn/", "httptools")),
    ("connection deadlines (core/http/protocol.py)", ("/argocd_lifecycle/http/protocol.py",)),
    (
        "bearer check (core/http/auth.py, tokens.py)",
        ("/argocd_lifecycle/http/auth.py", "/argocd_lifecycle/http/tokens.py"),
    ),
    (
        "body read + depth check (core/http/body.py, json_body.py)",
        ("/argocd_lifecycle/http/body.py", "/argocd_lifecycle/http/json_body.py"),
    ),
    (
        "guard, errors (core/http/service.py, errors.py)",
        ("/argocd_lifecycle/http/service.py", "/argocd_lifecycle/http/errors.py"),
    ),
    ("Starlette: routing, Request, JSONResponse", ("/starlette/",)),
    (
        "JSON parse + wire checks + event (json, wire.py, events.py, links.py)",
        (
            "/json/",
            "/argocd_lifecycle/notifications/receiver/wire.py",
            "/argocd_lifecycle/notifications/receiver/events.py",
            "/argocd_lifecycle/notifications/receiver/links.py",
            "/argocd_lifecycle/lifecycle_event.py",
        ),
    ),
    (
        "pipeline: routing, silences, notification (pipeline.py ...)",
        (
            "/argocd_lifecycle/notifications/receiver/pipeline.py",
            "/argocd_lifecycle/notifications/receiver/routing.py",
            "/argocd_lifecycle/notifications/receiver/silences.py",
            "/argocd_lifecycle/notifications/receiver/notification.py",
            "/argocd_lifecycle/notifications/receiver/text.py",
            "/argocd_lifecycle/notifications/receiver/app.py",
            "/argocd_lifecycle/model.py",
            "dataclasses.py",
            "secrets.py",
        ),
    ),
    (
        "state store: SQLite dedupe, flap, outbox, group commit",
        ("/argocd_lifecycle/notifications/receiver/sqlite_", "/argocd_lifecycle/notifications/receiver/state.py"),
    ),
    ("metrics (prometheus_client)", ("/prometheus_client/",)),
)
OTHER = "event loop, tasks, everything else"


class Transport:
    """The socket side of one in-process connection: what the server writes is kept, nothing is sent."""

    def __init__(self) -> None:
        self.written = bytearray()
        self.closed = False

    def write(self, data: bytes) -> None:
        self.written += data

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 40000), "sockname": ("127.0.0.1", 8080)}.get(name, default)

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return 0

    def close(self) -> None:
        self.closed = True

    abort = close

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_protocol(self, protocol: Any) -> None:
        pass


async def drive(config: Any, protocol: type[Any], reqs: list[bytes], connections: int = 32) -> float:
    """CPU us per event of serving ``reqs`` with ``protocol`` on in-process connections, ``connections``
    requests in flight at a time (as the saturation run keeps 32), every answer checked to be a 202."""
    state = uvicorn.server.ServerState()
    conns = [(protocol(config, state, {}), Transport()) for _ in range(connections)]
    for proto, transport in conns:
        proto.connection_made(transport)
    cpu = time.process_time()
    for start in range(0, len(reqs), connections):
        batch = list(zip(conns, reqs[start : start + connections], strict=False))
        for (proto, _), raw in batch:
            proto.data_received(raw)
        await asyncio.gather(*state.tasks)
        for (_, transport), _ in batch:
            if transport.closed or not transport.written.startswith(b"HTTP/1.1 202"):
                raise RuntimeError(f"unexpected answer {bytes(transport.written[:40])!r}")
            transport.written.clear()
    cpu = time.process_time() - cpu
    for proto, _ in conns:  # its timers go with it
        proto.connection_lost(None)
    return cpu / len(reqs) * 1e6


def stage_of(
    func: tuple[str, int, str], stats: dict[Any, Any], seen: frozenset[Any] = frozenset()
) -> list[tuple[str, float]]:
    """(stage, share) for one profiled function: by its file, or, for a C function, by its callers'."""
    path = func[0]
    if path != "~":
        return [(next((name for name, marks in STAGES if any(m in path for m in marks)), OTHER), 1.0)]
    callers = {c: v[2] for c, v in stats[func][4].items() if c not in seen}
    total = sum(callers.values())
    if not total:
        return [(OTHER, 1.0)]
    return [(st, share * tt / total) for c, tt in callers.items() for st, share in stage_of(c, stats, seen | {func})]


def attribute(profile: cProfile.Profile) -> dict[str, float]:
    """Seconds of own time per stage."""
    stats: dict[Any, Any] = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    out = dict.fromkeys([*(name for name, _ in STAGES), OTHER], 0.0)
    for func, (_cc, _nc, tottime, _ct, _callers) in stats.items():
        for stage, share in stage_of(func, stats):
            out[stage] += tottime * share
    return out


def cut_short(receiver: Receiver) -> dict[str, Any]:
    """The receiver's ingest route with the same HTTP layer and credential, its handler ending after a
    stage: answering the ceiling's 202 right after the layer (the body read, bounded, depth-checked),
    or after the JSON parse, the wire checks and the event."""

    async def layer(request: Request) -> Response:
        request_body(request)
        return JSONResponse({"status": "queued"}, status_code=202)

    async def parsed(request: Request) -> Response:
        data = wire.check_argocd(wire.parse_object(request_body(request)))
        events.from_argocd(data, receiver.clock(), receiver.links)
        return JSONResponse({"status": "queued"}, status_code=202)

    def app(handler: Handler) -> Any:
        route = Endpoint("POST", "/v1/events/argocd", handler, role=INGEST, body=True)
        return build_service_app(INFO, [route], auth=receiver.auth)

    return {"layer": app(layer), "parsed": app(parsed)}


async def stages_run(folder: Path, events: int, rounds: int) -> None:
    logging.getLogger("argocd_lifecycle").setLevel(logging.ERROR)  # the sink's refused deliveries
    cfg = receiver_config.load(write_config(folder))
    receiver = Receiver(cfg, await open_state(f"sqlite:///{folder}/state.db"))
    app = build_app(receiver)
    namespace: dict[str, Any] = {}
    exec(BASELINE_APP, namespace)
    apps = {"discard": namespace["app"], **cut_short(receiver), "receiver": app}
    settings = ServerSettings((("127.0.0.1", 0),))
    configs = {name: uvicorn_config(a, settings, lifespan="off") for name, a in apps.items()}
    for config in configs.values():
        config.load()
    # cumulative: each run adds one stage to the one before; name -> (app, protocol, what it adds)
    runs = {
        "ceiling: discard app under uvicorn's protocol": (
            "discard",
            HttpToolsProtocol,
            "HTTP parsing, uvicorn, Starlette",
        ),
        "the same app under core/http's protocol": ("discard", LimitedHttpProtocol, "connection deadlines"),
        "ingest route, handler answers at once": ("layer", LimitedHttpProtocol, "core/http: guard, bearer, body"),
        "+ JSON parse, wire checks, event": ("parsed", LimitedHttpProtocol, "JSON, checks, event"),
        "+ pipeline: the receiver as served": ("receiver", LimitedHttpProtocol, "pipeline, SQLite, answer"),
    }
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    async with receiver.lifespan(app):
        await drive(configs["receiver"], LimitedHttpProtocol, requests(200, seed=99))  # warm-up: caches, first pages
        for r in range(rounds):
            for n, (name, (which, protocol, _)) in enumerate(runs.items()):
                # a seed per run: a repeated seed would make every event of the second run a duplicate
                reqs = requests(events, seed=100 + len(runs) * r + n)
                cpu[name].append(await drive(configs[which], protocol, reqs))
        profile = cProfile.Profile()
        profile.enable()
        profiled = await drive(configs["receiver"], LimitedHttpProtocol, requests(events, seed=1000))
        profile.disable()
    med = {name: statistics.median(v) for name, v in cpu.items()}
    served = med["+ pipeline: the receiver as served"]
    print(f"in-process CPU per event (no client, no sockets), medians of {rounds} rounds of {events} events")
    print(f"  {'':48s}{'us/event':>9s}{'adds':>8s}  {'share':>6s}  for")
    before = 0.0
    for name, us in med.items():
        print(f"  {name:48s}{us:9.1f}{us - before:8.1f}  {(us - before) / served:6.1%}  {runs[name][2]}")
        before = us
    print(f"  receiver / ceiling: {ratio(served, med[next(iter(runs))])}x CPU per event")
    seconds = attribute(profile)
    total = sum(seconds.values())
    stats: dict[Any, Any] = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    sqlite = sum(v[2] for f, v in stats.items() if f[0] == "~" and "sqlite3" in f[2]) / events * 1e6
    print(f"\nthe receiver as served, own time by code (cProfile, {profiled:.0f} us/event under it; Python code is")
    print("inflated against C calls such as SQLite's under a profiler, so read the shares as an order)")
    for stage, sec in sorted(seconds.items(), key=lambda kv: -kv[1]):
        print(f"  {stage:72s}{sec / total:6.1%}")
    print(f"SQLite's own C calls (statements, commits; a profiler hardly inflates them): {sqlite:.1f} us/event")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=10_000, help="requests per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rate", type=float, default=2000.0, help="offered events/s for the latency run")
    parser.add_argument("--smoke", action="store_true", help="200 events, one round: checks the script still works")
    parser.add_argument(
        "--stages",
        action="store_true",
        help="instead: the receiver's CPU per event in-process (no client, no sockets), by stage",
    )
    args = parser.parse_args()
    if args.smoke:
        args.events, args.rounds = 200, 1
    if args.stages or args.smoke:
        with tempfile.TemporaryDirectory() as tmp:
            server.run(stages_run(Path(tmp), args.events, args.rounds))
        if args.stages:
            return
        print()
    results: dict[str, dict[str, list[float]]] = {
        name: {"eps": [], "p50": [], "p99": [], "achieved": [], "cpu_us": []} for name in ("baseline", "receiver")
    }
    with tempfile.TemporaryDirectory() as tmp:
        servers = {"baseline": start_baseline(), "receiver": start_receiver(Path(tmp))}
        try:
            for r in range(args.rounds):
                for name, (proc, port) in servers.items():
                    # new seeds each run: every round brings fresh events, not duplicates of the last
                    reqs = requests(args.events, seed=2 * r)
                    cpu = cpu_seconds(proc.pid)
                    eps = bounded(saturate(port, reqs), f"{name} saturation", args.events)
                    cpu_us = (cpu_seconds(proc.pid) - cpu) / len(reqs) * 1e6
                    offered = fixed_rate(port, requests(args.events, 2 * r + 1), args.rate)
                    achieved, lat = bounded(offered, f"{name} fixed rate", args.events)
                    lat.sort()
                    row = results[name]
                    row["eps"].append(eps)
                    row["cpu_us"].append(cpu_us)
                    row["achieved"].append(achieved)
                    row["p50"].append(lat[len(lat) // 2] * 1000)
                    row["p99"].append(lat[int(len(lat) * 0.99)] * 1000)
                    print(
                        f"round {r + 1} {name:8s} saturation {eps:7.0f} ev/s, {cpu_us:4.0f} us CPU/event | "
                        f"at {args.rate:.0f}/s offered: "
                        f"achieved {achieved:6.0f}/s p50 {row['p50'][-1]:6.2f} ms p99 {row['p99'][-1]:6.2f} ms",
                        flush=True,
                    )
        finally:
            for proc, _ in servers.values():
                proc.terminate()
                proc.wait(10)
    med = {name: {k: statistics.median(v) for k, v in row.items()} for name, row in results.items()}
    b, o = med["baseline"], med["receiver"]
    print(f"\nmedians of {args.rounds} rounds, {args.events} events each")
    print(f"{'':10s}{'events/s':>10s}{'CPU us/ev':>10s}{'1-core ev/s':>12s}{'p50 ms':>9s}{'p99 ms':>9s}")
    for name in ("baseline", "receiver"):
        m = med[name]
        print(
            f"{name:10s}{m['eps']:10.0f}{m['cpu_us']:10.0f}{ratio(1e6, m['cpu_us'], '12.0f')}"
            f"{m['p50']:9.2f}{m['p99']:9.2f}"
        )
    print(
        f"receiver/baseline: throughput {ratio(o['eps'], b['eps'])}, CPU per event {ratio(o['cpu_us'], b['cpu_us'])}, "
        f"p99 {ratio(o['p99'], b['p99'])}"
    )
    print(
        f"targets: >= 2000 events/s -> {'met' if o['eps'] >= 2000 else 'MISSED'}; "
        f"p99 <= 25 ms at {args.rate:.0f}/s -> {'met' if o['p99'] <= 25 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
