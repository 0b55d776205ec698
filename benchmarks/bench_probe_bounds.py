"""Bounded probes: what a hostile cluster endpoint costs the prober, side by side with the prober before the bounds.

The attacks come from one loopback HTTPS endpoint (``tests/integration/generators/fleet/hostile.py``):
node pages that never end, a 400 MB ``/version``, an answer trickled a byte every 2 s, and a healthy
cluster queued behind two trickling ones with two concurrency slots (what the engine's semaphore does).
Each case runs in a fresh child process that probes through ``Prober`` with the default settings; the
child reports its peak resident memory over what it held before the probe (VmHWM - VmRSS), the bytes
its connections read (counted in httpcore's network stream, under TLS) and when each probe finished.
``--before REV`` runs the same children on the prober of that revision too (exported
with ``git archive`` into a temporary folder, first on the child's path).

Usage: .venv/bin/python benchmarks/bench_probe_bounds.py [--before 6729d94] [--smoke]
``--smoke`` runs the same code with small answers and short timeouts, without --before (what `make test`
runs); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# the network stream under every httpcore connection on asyncio: where the child counts what it read
from httpcore._backends.anyio import AnyIOStream

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from argocd_lifecycle.cluster_secrets import parse_secret  # noqa: E402
from argocd_lifecycle.generators.fleet.prober import Prober, ProberSettings  # noqa: E402
from tests.integration.generators.fleet.hostile import MIB, HostileCluster  # noqa: E402
from tests.integration.generators.loopback import LoopbackCluster  # noqa: E402


@dataclass(frozen=True)
class Case:
    title: str
    #: what the hostile endpoint does (Attacks fields)
    attack: dict[str, str] = field(default_factory=dict)
    #: probes of the hostile endpoint queued first (each its own cluster Secret, client and connection)
    hostile: int = 1
    #: a healthy cluster queued after them
    healthy: bool = False
    #: concurrency slots (the engine's semaphore)
    slots: int = 2
    #: run on the prober of --before too
    before: bool = True


CASES = [
    Case("healthy cluster (reference)", hostile=0, healthy=True),
    Case("node pages without end", {"nodes": "endless"}),
    Case("400 MB /version", {"version": "huge"}),
    Case("/version trickled, a byte every 2 s", {"version": "trickle"}),
    Case("healthy cluster behind 2 trickling ones, 2 slots", {"version": "trickle"}, hostile=2, healthy=True),
    # the worst the bounds allow: every slot holds a node page just under its cap until the deadline
    Case("64 slots, each a node page at its cap", {"nodes": "fat"}, hostile=64, slots=64, before=False),
]


_received = [0]


def _counting(read: Any) -> Any:
    async def counted(self: AnyIOStream, max_bytes: int, timeout: float | None = None) -> bytes:
        data: bytes = await read(self, max_bytes, timeout)
        _received[0] += len(data)
        return data

    return counted


def _status(field: str) -> int:
    """A ``/proc/self/status`` figure in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


async def _probe_all(spec: dict[str, Any]) -> dict[str, Any]:
    known = {f.name for f in dataclasses.fields(ProberSettings)}  # the old prober has fewer settings
    prober = Prober(ProberSettings(**{k: v for k, v in spec["settings"].items() if k in known}))
    secrets = [parse_secret(s) for s in spec["secrets"]]
    slots = asyncio.Semaphore(spec["slots"])
    finished: dict[str, tuple[float, str]] = {}
    started = time.monotonic()

    async def one(index: int) -> None:
        async with slots:
            result, _ = await prober.probe(secrets[index])
        outcome = result.error or getattr(result, "nodes_unknown", "") or f"ok, {result.nodes} nodes"
        finished[str(index)] = (time.monotonic() - started, outcome)

    before = _status("VmRSS")
    # in queue order: the first ones take the slots, the healthy cluster (last) waits for one
    tasks = [asyncio.create_task(one(i)) for i in range(len(secrets))]
    await asyncio.wait(tasks, timeout=spec["limit"])
    return {"before": before, "peak": _status("VmHWM"), "finished": finished, "read": _received[0]}


def child(spec_text: str) -> None:
    AnyIOStream.read = _counting(AnyIOStream.read)  # type: ignore[method-assign]
    report = asyncio.run(_probe_all(json.loads(spec_text)))
    print(json.dumps(report), flush=True)
    os._exit(0)  # probes still running (the old prober's trickles) are abandoned, not awaited


def export(rev: str, folder: Path) -> Path:
    """The package of ``rev`` as an importable folder (the layout pyproject.toml's package-dir maps)."""
    folder.mkdir(parents=True)
    archive = folder / "src.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(REPO), "archive", rev, "core", "generators"], stdout=out, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder / "src", filter="data")
    package = folder / "pkg" / "argocd_lifecycle"
    package.parent.mkdir(parents=True)
    (folder / "src" / "core").rename(package)
    (folder / "src" / "generators").rename(package / "generators")
    return folder / "pkg"


def run_case(
    hostile: HostileCluster,
    healthy: LoopbackCluster,
    case: Case,
    *,
    settings: dict[str, float],
    limit: float,
    path: Path | None,
) -> dict[str, Any]:
    attacks = hostile.attacks
    attacks.version = attacks.readyz = attacks.nodes = ""
    for key, value in case.attack.items():
        setattr(attacks, key, value)
    attacks.sent = 0
    secrets = []
    for i in range(case.hostile):
        secret = hostile.secret()
        secret["metadata"]["name"] = f"cluster-hostile-{i}"  # one client (and connection) each
        secrets.append(secret)
    if case.healthy:
        secrets.append(healthy.secret())
    spec = {"settings": settings, "secrets": secrets, "slots": case.slots, "limit": limit}
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    out = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(spec)], env=env, capture_output=True, text=True, check=True
    )
    report: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    report["probes"] = len(secrets)
    return report


def describe(report: dict[str, Any], limit: float) -> str:
    peak = (report["peak"] - report["before"]) / MIB
    done = report["finished"]
    last = str(report["probes"] - 1)
    if last in done:
        seconds, outcome = done[last]
        when = f"done at {seconds:.1f} s: {outcome[:60]}"
    else:
        when = f"not done after {limit:g} s"
    return f"peak +{peak:.0f} MiB, read {report['read'] / MIB:.2f} MiB, {when}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--before", default="", help="also run the prober of this revision")
    parser.add_argument("--child", default="")
    opts = parser.parse_args()
    if opts.child:
        child(opts.child)
    smoke = opts.smoke
    settings = {"timeout": 0.5, "deadline": 1.0} if smoke else {}
    limit = 5.0 if smoke else 60.0
    with tempfile.TemporaryDirectory(prefix="bench-probe-") as tmp:
        folder = Path(tmp)
        hostile = HostileCluster(folder / "pki", "hostile").start()
        healthy = LoopbackCluster(folder / "pki", "healthy").start()
        hostile.attacks.trickle = 0.1 if smoke else 2.0
        if smoke:
            hostile.attacks.fat_bytes = 16 * 1024
        codes: list[tuple[str, Path | None]] = [("ours", None)]
        if opts.before and not smoke:
            codes.append((f"before ({opts.before})", export(opts.before, folder / "before")))
        try:
            for case in CASES:
                # node pages: the old prober keeps every node it read, and 100 MB of pages is already a GiB
                cap = 100 * 1000 * 1000 if case.attack.get("nodes") == "endless" else 400 * 1000 * 1000
                hostile.attacks.cap = 2 * MIB if smoke else cap
                for name, path in codes if case.before else codes[:1]:
                    report = run_case(hostile, healthy, case, settings=settings, limit=limit, path=path)
                    print(f"{case.title:<50} {name:<18} {describe(report, limit)}", flush=True)
        finally:
            hostile.stop()
            healthy.stop()


if __name__ == "__main__":
    main()
