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
Usage: .venv/bin/python benchmarks/bench_receiver.py [--events N] [--rounds N] [--smoke]
``--smoke`` runs the same code with 200 events for one round (seconds; what `make test` runs so the
script cannot rot); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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

T = TypeVar("T")
REPO = Path(__file__).resolve().parents[1]
CLI = str(REPO / ".venv" / "bin" / "argocd-lifecycle")
TOKEN = "bench-token"
BASELINE = """
import sys, uvicorn
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

async def accept(request):
    await request.body()
    return JSONResponse({"status": "queued"}, status_code=202)

app = Starlette(routes=[Route("/v1/events/argocd", accept, methods=["POST"])])
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


def start_receiver(folder: Path) -> tuple[subprocess.Popen[bytes], int]:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=10_000, help="requests per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rate", type=float, default=2000.0, help="offered events/s for the latency run")
    parser.add_argument("--smoke", action="store_true", help="200 events, one round: checks the script still works")
    args = parser.parse_args()
    if args.smoke:
        args.events, args.rounds = 200, 1
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
