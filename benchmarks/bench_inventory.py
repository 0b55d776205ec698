"""Inventory and prober at fleet scale: 2,000 simulated clusters on loopback, `generator serve` as a process.

Measures, each against its target (2,000 clusters swept within 20 s, under 300 MiB, a new Secret seen within 1 s):
- first full probe sweep (every cluster due at once): time until all 2,000 report a version;
- steady-state probes per second and the sweep time it implies, at the default --probe-interval 10s;
- resident memory (VmRSS) of the serve process with 2,000 clusters;
- a new Secret visible in /api/v1/clusters after its file is written (median of several);
- a stopped cluster reported Unreachable (target: unreachable-after x probe-interval + 2 s).
Side by side in the same run: the first sweep at --probe-concurrency 64 (default) and 8.

The simulated clusters are one HTTPS server process (uvicorn, one CA, clusters under /c/<name>, bearer
tokens); the stopped cluster is a separate HTTPS server on its own port.
Usage: .venv/bin/python benchmarks/bench_inventory.py [--clusters N] [--interval 10s] [--smoke]
``--smoke`` runs the same code with 5 clusters probed every 500ms and one new Secret (seconds; what
`make test` runs so the script cannot rot); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
import yaml  # noqa: E402

from argocd_lifecycle.times import parse_duration  # noqa: E402
from tests.integration.generators.loopback import (  # noqa: E402
    CertAuthority,
    LoopbackCluster,
    SimCluster,
    cluster_app,
    cluster_secret,
    free_port,
)

CLI = str(REPO / ".venv" / "bin" / "argocd-lifecycle")


def serve_sim(port: int, folder: Path, count: int) -> None:
    """Child process: one HTTPS server answering for `count` clusters under /c/<name>."""
    import uvicorn

    fleet = {f"c-{i:04d}": SimCluster(name=f"c-{i:04d}", token=f"token-{i:04d}") for i in range(count)}
    uvicorn.run(
        cluster_app(fleet=fleet),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_keep_alive=120,
        backlog=4096,
        ssl_certfile=str(folder / "server.crt"),
        ssl_keyfile=str(folder / "server.key"),
    )


def wait_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port}")


def wait_until(done: Callable[[], bool], what: str, timeout: float, pause: float) -> None:
    """Poll until ``done()``; a run that never gets there stops with what it was waiting for."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise SystemExit(f"gave up after {timeout:.0f}s waiting for {what}")
        time.sleep(pause)


def rows(client: httpx.Client) -> dict[str, dict[str, Any]]:
    try:
        doc = client.get("/api/v1/clusters", timeout=10).json()
    except (httpx.HTTPError, ValueError):
        return {}
    return {r["name"]: r for r in doc.get("clusters", [])}


def visible(client: httpx.Client, name: str) -> bool:
    return name in rows(client)


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    """user + system CPU time of a process: what a sweep costs, whatever the machine's load."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def probes_total(client: httpx.Client) -> float:
    text = client.get("/metrics", timeout=10).text
    for line in text.splitlines():
        if line.startswith("argocd_lifecycle_probe_duration_seconds_count"):
            return float(line.split()[-1])
    return 0.0


def start_serve(secrets: Path, port: int, interval: str, concurrency: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            CLI,
            "generator",
            "serve",
            "--clusters-from",
            str(secrets),
            "--listen",
            f"127.0.0.1:{port}",
            "--insecure-no-auth",
            "--probe-interval",
            interval,
            "--probe-concurrency",
            str(concurrency),
            "--log-level",
            "WARNING",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


Serve = subprocess.Popen[bytes]


def first_sweep(secrets: Path, total: int, interval: str, concurrency: int) -> tuple[float, float, Serve, int]:
    port = free_port()
    started = time.monotonic()
    proc = start_serve(secrets, port, interval, concurrency)
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}")
    wait_port(port)
    while True:
        probed = sum(1 for r in rows(client).values() if r["kubernetesVersion"])
        if probed >= total:
            return time.monotonic() - started, cpu_seconds(proc.pid), proc, port
        if time.monotonic() - started > 300:
            raise SystemExit(f"first sweep did not finish: {probed}/{total}")
        time.sleep(0.2)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clusters", type=int, default=2000)
    parser.add_argument("--interval", default="10s")
    parser.add_argument("--new-secret-runs", type=int, default=7)
    parser.add_argument("--smoke", action="store_true", help="5 clusters, 500ms probes: checks the script still works")
    parser.add_argument("--sim", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sim:
        serve_sim(int(args.sim[0]), Path(args.sim[1]), int(args.sim[2]))
        return
    if args.smoke:
        args.clusters, args.interval, args.new_secret_runs = 5, "500ms", 1
    interval_s = parse_duration(args.interval)
    work = Path(tempfile.mkdtemp(prefix="bench-inventory-"))
    try:
        measure(args, interval_s, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def measure(args: argparse.Namespace, interval_s: float, work: Path) -> None:
    ca = CertAuthority("bench-fleet-ca")
    cert, key = ca.issue("bench-apiserver")
    (work / "server.crt").write_bytes(cert)
    (work / "server.key").write_bytes(key)
    sim_port = free_port()
    sim = subprocess.Popen([sys.executable, __file__, "--sim", str(sim_port), str(work), str(args.clusters)])
    wait_port(sim_port)
    secrets = work / "secrets"
    secrets.mkdir()
    for i in range(args.clusters):
        name = f"c-{i:04d}"
        obj = cluster_secret(name, f"https://127.0.0.1:{sim_port}/c/{name}", f"token-{i:04d}", ca.pem)
        (secrets / f"{name}.yaml").write_text(yaml.safe_dump(obj))
    victim = LoopbackCluster(work / "pki", "victim").start()
    (secrets / "victim.yaml").write_text(yaml.safe_dump(victim.secret()))
    total = args.clusters + 1
    print(f"{args.clusters} simulated clusters + 1 stoppable; probe interval {args.interval}; {os.cpu_count()} CPUs")

    try:
        sweep8, cpu8, proc8, _ = first_sweep(secrets, total, args.interval, 8)
        stop(proc8)
        sweep, cpu_first, proc, port = first_sweep(secrets, total, args.interval, 64)
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}")
        try:
            # steady state: probes per second, and CPU per probe, over three intervals
            time.sleep(2 * interval_s)
            p0, c0, t0 = probes_total(client), cpu_seconds(proc.pid), time.monotonic()
            time.sleep(3 * interval_s)
            done = probes_total(client) - p0
            rate = done / (time.monotonic() - t0)
            cpu_per_probe = (cpu_seconds(proc.pid) - c0) / done if done else float("inf")
            steady_sweep = total / rate if rate else float("inf")
            rss = rss_mib(proc.pid)

            latencies = []
            for n in range(args.new_secret_runs):
                name = f"new-{n}"
                obj = cluster_secret(name, f"https://127.0.0.1:{sim_port}/c/c-0000", "token-0000", ca.pem)
                path = secrets / f"{name}.yaml"
                tmp = secrets / f".{name}.tmp"
                tmp.write_text(yaml.safe_dump(obj))
                t0 = time.monotonic()
                tmp.rename(path)  # atomic: the file appears whole
                # each poll serialises 2,000 rows: poll gently, not to load the loop
                wait_until(functools.partial(visible, client, name), f"Secret {name} to appear", 60, 0.05)
                latencies.append(time.monotonic() - t0)
                time.sleep(0.3)

            def victim_phase() -> Any:
                return rows(client).get("victim", {}).get("phase")

            wait_until(lambda: victim_phase() == "Ready", "the stoppable cluster to be Ready", 120, 0.2)
            victim.stop()
            t0 = time.monotonic()
            wait_until(lambda: victim_phase() == "Unreachable", "the stopped cluster to be Unreachable", 120, 0.25)
            unreachable = time.monotonic() - t0
            ready = sum(1 for r in rows(client).values() if r["phase"] == "Ready")
        finally:
            stop(proc)
    finally:
        sim.terminate()
        sim.wait(timeout=30)
        victim.stop()

    target_unreachable = 3 * interval_s + 2
    new_median = statistics.median(latencies)
    print()
    print(f"{'measure':<48}{'ours':>12}{'target':>12}{'ratio':>8}")
    figures = [
        ("first full sweep, --probe-concurrency 64 (s)", sweep, 20.0),
        ("first full sweep, --probe-concurrency 8 (s)", sweep8, 20.0),
        (f"steady-state sweep at {args.interval} interval (s)", steady_sweep, 20.0),
        ("steady-state probes per second", rate, total / interval_s),
        ("CPU seconds, first sweep (incl. start-up)", cpu_first, 20.0),
        ("CPU seconds per steady-state sweep", cpu_per_probe * total, 20.0),
        (f"resident memory, {total:,} clusters (MiB)", rss, 300.0),
        (f"new Secret visible, median of {len(latencies)} (s)", new_median, 1.0),
        ("new Secret visible, worst (s)", max(latencies), 1.0),
        ("stopped cluster reported Unreachable (s)", unreachable, target_unreachable),
    ]
    for label, value, target in figures:
        print(f"{label:<48}{value:>12.2f}{target:>12.2f}{value / target:>8.2f}")
    print(f"\nclusters Ready at the end: {ready}/{total + args.new_secret_runs - 1}")
    print(f"concurrency 64 vs 8, first sweep: {sweep8 / sweep:.2f}x faster")
    load = os.getloadavg()
    print(f"load average during the run (1/5/15 min): {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(
        json.dumps(
            {"sweep": sweep, "sweep8": sweep8, "cpu8": cpu8, "rss": rss, "new": latencies, "unreachable": unreachable}
        )
    )


if __name__ == "__main__":
    main()
