"""Plugin generator service: getparams.execute with 2,000 clusters, one uvicorn worker, against nginx
serving the very same response bytes from a file (the ceiling), side by side in one run.

Both get the same request from wrk (POST with a bearer token and Argo CD's body); nginx answers it
with the file (``error_page 405 =200``, since its static module refuses POST otherwise). Two
encodings: ``gzip`` is what Argo CD's Go client asks for (its transport adds Accept-Encoding: gzip
and inflates transparently; nginx serves the same compressed bytes with gzip_static), ``identity``
is the uncompressed body. Rounds alternate between the servers; the script prints each round and
the medians: requests/s, p50, p99 (wrk's latency distribution) and ours/nginx ratios.
Usage: .venv/bin/python benchmarks/bench_generator_service.py [--clusters N] [--seconds S]
       [--rounds N] [--connections C] [--smoke]
``--smoke`` runs the same code with 50 clusters, one 1-second round per server and encoding (seconds;
what `make test` runs so the script cannot rot); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import httpx

if TYPE_CHECKING:  # the load-driving process never imports the service
    from argocd_lifecycle.generators.fleet.view import ClusterState

TOKEN = "bench-token-2000"
PATH = "/api/v1/getparams.execute"
BODY = {"applicationSetName": "guestbook", "input": {"parameters": {"labelSelector": {"matchLabels": {"env": "prod"}}}}}
PHASES = ["Ready"] * 16 + ["Degraded", "Upgrading", "Unreachable", "Decommissioning"]


class BenchFleet:
    """A FleetView over a fixed list: 2,000 clusters shaped like real cluster Secrets."""

    def __init__(self, count: int) -> None:
        from argocd_lifecycle.generators.fleet.view import ClusterState
        from argocd_lifecycle.model import Phase

        since = datetime(2025, 1, 1, tzinfo=UTC)
        self._clusters = sorted(
            (
                ClusterState(
                    name=f"cluster-{i:04d}",
                    server=f"https://cluster-{i:04d}.k8s.example.test:6443",
                    secret_name=f"cluster-{i:04d}",
                    project="platform",
                    labels={
                        "argocd.argoproj.io/secret-type": "cluster",
                        "env": "prod",
                        "region": ["eu-west-1", "us-east-1", "ap-south-1"][i % 3],
                        "tier": ["core", "edge"][i % 2],
                    },
                    annotations={
                        "argocd-lifecycle.io/phase": PHASES[i % len(PHASES)],
                        "argocd-lifecycle.io/phase-since": "2025-01-01T00:00:00Z",
                        "argocd-lifecycle.io/kubernetes-version": f"1.{28 + i % 4}.{i % 9}",
                        "team": f"team-{i % 40}",
                    },
                    phase=Phase(PHASES[i % len(PHASES)]),
                    phase_since=since + timedelta(minutes=i),
                    ready=True,
                    git_version=f"v1.{28 + i % 4}.{i % 9}",
                    upgrade_to="1.32" if PHASES[i % len(PHASES)] == "Upgrading" else "",
                    nodes=5,
                    nodes_ready=5,
                )
                for i in range(count)
            ),
            key=lambda c: c.name,
        )

    def clusters(self) -> list[ClusterState]:
        return self._clusters

    def synced(self) -> bool:
        return True

    def stale_seconds(self) -> float:
        return 0.0

    def departed(self) -> frozenset[str]:
        return frozenset()  # a fixed fleet: no cluster Secret is ever deleted


def serve(port: int, token_file: Path, clusters: int) -> None:
    from argocd_lifecycle.generators.service.app import build_app
    from argocd_lifecycle.generators.service.settings import ServiceSettings
    from argocd_lifecycle.http import server

    app = build_app(BenchFleet(clusters), ServiceSettings.from_options(token_file=token_file))
    # served as `generator serve` serves it: uvloop, httptools with the HTTP layer's limits
    server.run(server.serve(app, server.ServerSettings((("127.0.0.1", port),), log_level="warning")))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(url: str, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    """Until the server answers; a server process that exits first stops the run at once."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server for {url} exited with {proc.returncode} before answering")
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"server at {url} did not come up")


NGINX_CONF = """
daemon off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path {work}/body;
  proxy_temp_path {work}/proxy;
  fastcgi_temp_path {work}/fastcgi;
  uwsgi_temp_path {work}/uwsgi;
  scgi_temp_path {work}/scgi;
  server {{
    listen 127.0.0.1:{port};
    root {work}/www;
    default_type application/json;
    gzip_static on;
    gzip_vary on;
    location / {{ error_page 405 =200 $uri; }}
  }}
}}
"""

WRK_SCRIPT = """
wrk.method = "POST"
wrk.body = [[{body}]]
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer {token}"
wrk.headers["User-Agent"] = "argocd-applicationset"
wrk.headers["Accept-Encoding"] = "{encoding}"
"""


ENCODINGS = ("gzip", "identity")


def fetch_raw(url: str, encoding: str) -> bytes:
    """The body as sent on the wire (not inflated), for one Accept-Encoding."""
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept-Encoding": encoding}
    with httpx.stream("POST", url, json=BODY, headers=headers, timeout=60) as response:
        response.raise_for_status()
        if response.headers.get("content-encoding", "identity") != encoding:
            raise SystemExit(f"{url} did not answer with {encoding} encoding")
        return b"".join(response.iter_raw())


def to_ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_wrk(url: str, script: Path, seconds: int, connections: int) -> dict[str, float]:
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency", "-s", str(script), url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    if "Non-2xx" in out:
        raise SystemExit(f"wrk saw errors:\n{out}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = to_ms(re.search(r"\s50%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    p99 = to_ms(re.search(r"\s99%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    return {"rps": rps, "p50": p50, "p99": p99}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clusters", type=int, default=2000)
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--smoke", action="store_true", help="tiny fleet, one short round: checks the script works")
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "TOKEN_FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.smoke:
        args.clusters, args.seconds, args.rounds = 50, 1, 1
    if args.serve:
        serve(int(args.serve[0]), Path(args.serve[1]), args.clusters)
        return
    for tool in ("wrk", "nginx"):
        if shutil.which(tool) is None and not Path(f"/usr/sbin/{tool}").exists():
            raise SystemExit(f"{tool} is missing: run tools/system-packages.sh (Debian package {tool})")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"

    with tempfile.TemporaryDirectory(prefix="bench-generator-") as tmp:
        work = Path(tmp)
        work.chmod(0o755)  # nginx workers drop root privileges and must read the files
        (work / "token").write_text(TOKEN)
        ours_port, nginx_port = free_port(), free_port()
        ours = subprocess.Popen(
            [sys.executable, __file__, "--clusters", str(args.clusters), "--serve", str(ours_port), str(work / "token")]
        )
        procs = [ours]
        try:
            ours_url = f"http://127.0.0.1:{ours_port}"
            wait_for(ours_url + "/healthz", ours)
            bodies = {encoding: fetch_raw(ours_url + PATH, encoding) for encoding in ENCODINGS}
            sets = len(json.loads(bodies["identity"])["output"]["parameters"])
            target = work / "www" / "api" / "v1" / "getparams.execute"
            target.parent.mkdir(parents=True)
            target.write_bytes(bodies["identity"])
            target.with_name(target.name + ".gz").write_bytes(bodies["gzip"])
            (work / "nginx.conf").write_text(NGINX_CONF.format(work=work, port=nginx_port))
            procs.append(subprocess.Popen([nginx, "-p", str(work), "-c", str(work / "nginx.conf")]))
            nginx_url = f"http://127.0.0.1:{nginx_port}"
            wait_for(nginx_url + "/", procs[-1])
            for encoding in ENCODINGS:
                if fetch_raw(nginx_url + PATH, encoding) != bodies[encoding]:
                    raise SystemExit(f"nginx does not serve the same {encoding} bytes")

            print(
                f"getparams.execute: {args.clusters} clusters, {sets} parameter sets, "
                f"{len(bodies['identity']):,} bytes ({len(bodies['gzip']):,} gzipped); wrk 1 thread, "
                f"{args.connections} connections, {args.seconds}s x {args.rounds} rounds per server and encoding",
                flush=True,
            )
            medians = {}
            for encoding in ENCODINGS:
                script = work / f"post-{encoding}.lua"
                script.write_text(WRK_SCRIPT.format(body=json.dumps(BODY), token=TOKEN, encoding=encoding))
                results: dict[str, list[dict[str, float]]] = {"ours": [], "nginx": []}
                for round_no in range(1, args.rounds + 1):
                    for name, url in (("ours", ours_url), ("nginx", nginx_url)):
                        figures = run_wrk(url + PATH, script, args.seconds, args.connections)
                        results[name].append(figures)
                        print(
                            f"{encoding:>8} round {round_no} {name:>5}: {figures['rps']:9.1f} req/s  "
                            f"p50 {figures['p50']:7.2f} ms  p99 {figures['p99']:7.2f} ms",
                            flush=True,
                        )
                medians[encoding] = {
                    n: {k: statistics.median(r[k] for r in rs) for k in ("rps", "p50", "p99")}
                    for n, rs in results.items()
                }
            print("\nmedians                      req/s     p50 ms    p99 ms")
            for encoding, med in medians.items():
                for name in ("ours", "nginx"):
                    m = med[name]
                    print(f"  {encoding:<8} {name:<10} {m['rps']:12.1f} {m['p50']:10.2f} {m['p99']:9.2f}")
                o, n = med["ours"], med["nginx"]
                print(
                    f"  {encoding:<8} ours/nginx {o['rps'] / n['rps']:12.2f} {o['p50'] / n['p50']:10.2f} "
                    f"{o['p99'] / n['p99']:9.2f}"
                )
            ours_gzip = medians["gzip"]["ours"]
            print(
                f"targets (gzip, as Argo CD asks): p99 <= 10 ms: {'met' if ours_gzip['p99'] <= 10 else 'MISSED'}; "
                f">= 1500 req/s: {'met' if ours_gzip['rps'] >= 1500 else 'MISSED'}"
            )
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()


if __name__ == "__main__":
    main()
