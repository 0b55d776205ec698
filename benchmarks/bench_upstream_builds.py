"""Upstream builds for the end-to-end tier: cold, warm and cached, side by side per tool.

Each build runs tools/build.sh itself (same flags, same consumer module) with a throw-away tools
cache (XDG_CACHE_HOME), so nothing it builds replaces the real binaries:
  cold   - a fresh, empty GOCACHE: every package compiled (the Go module cache is reused: downloads
           are not measured here)
  warm   - the machine's GOCACHE: a relink, what a new consumer-module key costs
  cached - the binary exists in the tools cache: what `make test` pays on every run after the first
Prints each figure and the cold/warm ratio. Cold builds take many minutes; --skip-cold leaves them out.
The tools: etcd, kube-apiserver and Argo CD at each release of tools/go/argocd/versions.txt
(``argocd-<minor>``); ``argocd-notify-eval-<minor>`` and ``appset-eval-<minor>`` (our harnesses against
that release) may be named too.
Usage: .venv/bin/python benchmarks/bench_upstream_builds.py [--skip-cold] [--smoke] [TOOL...]
``--smoke`` builds only kustomize, warm and cached (seconds; what `make test` runs so the script cannot
rot); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from tests.argocd_versions import RELEASES  # noqa: E402

BUILD = REPO / "tools" / "build.sh"
TOOLS = ["etcd", "kube-apiserver", *(r.tool("argocd") for r in RELEASES)]
HARNESSES = [r.tool(h) for r in RELEASES for h in ("argocd-notify-eval", "appset-eval")]
SMOKE_TOOL = "kustomize"  # the smallest tool tools/build.sh builds: a relink takes seconds


def machine_gocache() -> Path:
    out = subprocess.run(["go", "env", "GOCACHE"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def build(tool: str, xdg_cache: Path, gocache: Path) -> float:
    # GOCACHE always explicit: Go's default lives under XDG_CACHE_HOME, which is redirected here
    env = {**os.environ, "XDG_CACHE_HOME": str(xdg_cache), "GOCACHE": str(gocache), "GOTOOLCHAIN": "local"}
    started = time.monotonic()
    subprocess.run([str(BUILD), tool], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-cold", action="store_true", help="leave out the cold builds (many minutes)")
    parser.add_argument("--smoke", action="store_true", help=f"only {SMOKE_TOOL}, warm and cached")
    parser.add_argument("tools", nargs="*", metavar="TOOL", help=f"some of {', '.join(TOOLS)} (default: all)")
    args = parser.parse_args()
    unknown = set(args.tools) - set(TOOLS) - set(HARNESSES)
    if unknown:
        parser.error(f"unknown tool(s) {', '.join(sorted(unknown))}; choose from {', '.join(TOOLS + HARNESSES)}")
    if args.smoke:
        args.skip_cold, args.tools = True, [SMOKE_TOOL]
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    rows = []
    warm_cache = machine_gocache()
    for tool in args.tools or TOOLS:
        scratch = Path(tempfile.mkdtemp(prefix=f"bench-build-{tool}-"))
        try:
            cold = None
            if not args.skip_cold:
                cold = build(tool, scratch / "cold", scratch / "gocache")
                print(f"{tool:15} cold   {cold:8.1f} s", flush=True)
            warm = build(tool, scratch / "warm", warm_cache)
            print(f"{tool:15} warm   {warm:8.1f} s", flush=True)
            cached = build(tool, scratch / "warm", warm_cache)
            print(f"{tool:15} cached {cached:8.2f} s", flush=True)
            rows.append((tool, cold, warm, cached))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"\n{'tool':15} {'cold s':>8} {'warm s':>8} {'cached s':>9} {'cold/warm':>10}")
    for tool, cold, warm, cached in rows:
        cold_s = f"{cold:8.1f}" if cold is not None else f"{'-':>8}"
        ratio = f"{cold / warm:10.1f}" if cold is not None else f"{'-':>10}"
        print(f"{tool:15} {cold_s} {warm:8.1f} {cached:9.2f} {ratio}")
    if all(r[1] is not None for r in rows):
        print(f"{'total':15} {sum(r[1] or 0 for r in rows):8.1f} {sum(r[2] for r in rows):8.1f}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
