"""`make demo`: the lifecycle loop narrated on real upstream components (scenarios 1 to 4 of the end-to-end tier).

Run from the repository root: ``.venv/bin/python -m tests.e2e.demo_loop``. It builds the pinned
upstream binaries when they are missing (tools/build.sh shows progress), starts etcd, two
kube-apiservers, Redis, Argo CD and our services on 127.0.0.1, walks one cluster through
registration, sync, an outage and its recovery, prints each step with its timing on stderr, and
stops everything it started. Process logs stay in test-artifacts/demo/.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tests.harness import paths
from tests.harness.loop import APP_NAMESPACE, CLUSTER_NAME, Loop, start_loop, synced
from tests.harness.platform import start_platform
from tests.harness.procs import HarnessError
from tests.harness.sink import Sink

TOOLS = ["helm", "kustomize", "etcd", "kube-apiserver", "argocd"]
LOGS = paths.REPO / "test-artifacts" / "demo"


class Narrator:
    def __init__(self) -> None:
        self.start = time.monotonic()
        self.mark = self.start

    def say(self, text: str) -> None:
        now = time.monotonic()
        print(f"[{now - self.start:6.1f}s] {text}", file=sys.stderr, flush=True)

    def step(self, text: str) -> None:
        """A finished step, with how long it took since the previous one."""
        now = time.monotonic()
        print(f"[{now - self.start:6.1f}s] {text} (+{now - self.mark:.1f}s)", file=sys.stderr, flush=True)
        self.mark = now

    def begin(self, title: str) -> None:
        self.mark = time.monotonic()
        print(f"\n== {title}", file=sys.stderr, flush=True)


def build_tools(say: Narrator) -> None:
    missing = [t for t in TOOLS if not (paths.tools_bin() / t).exists()]
    if not missing:
        return
    say.say(f"building {', '.join(missing)} from the Go module proxy (a cold build takes 15-30 minutes)")
    subprocess.run([str(paths.REPO / "tools" / "build.sh"), *[t.replace("-", "_") for t in missing]], check=True)


def run(say: Narrator, scratch: Path) -> None:
    say.begin("Starting the platform on 127.0.0.1: etcd, two kube-apiservers, Redis, Argo CD v3.2")
    platform = start_platform(scratch, LOGS, say.say)
    say.mark = time.monotonic()
    sink = Sink()
    try:
        loop = start_loop(platform, sink)
        say.step("receiver, notifications catalog, generator and the ApplicationSet are in place")
        print(f"\nFleet page: {loop.generator_url}/  (cluster phases, live while the demo runs)", file=sys.stderr)
        story(say, loop)
    finally:
        say.begin("Stopping everything")
        sink.close()
        platform.stop()
        say.step("all processes stopped")


def story(say: Narrator, loop: Loop) -> None:
    say.begin(f"1. Registering cluster {CLUSTER_NAME}: the readiness gate, then its Application")
    loop.pass_gate(timeout=120)
    say.step(f"cluster {CLUSTER_NAME} passed the readiness gate (phase Ready)")
    loop.wait_app(lambda a: True, timeout=60, what="to be created")
    say.step(f"the ApplicationSet created {loop.app_name} (the generator's refresh, not the requeue)")

    say.begin("2. Rendering legacy manifests through the plugin and syncing")
    app = loop.wait_app(synced, timeout=240, what="to sync")
    kinds = ", ".join(
        sorted(f"{r['kind']} {r.get('group') or 'core'}/{r['version']}" for r in app["status"]["resources"])
    )
    say.step(f"synced to namespace {APP_NAMESPACE} downstream: {kinds}")

    say.begin(f"3. Stopping the {CLUSTER_NAME} kube-apiserver")
    phase_change(say, loop, loop.lose_cluster, "phase Unreachable: the Application is kept, automated sync off")
    say.begin(f"4. Starting the {CLUSTER_NAME} kube-apiserver again")
    phase_change(say, loop, loop.restore_cluster, "phase Ready again: automated sync back on")


def phase_change(say: Narrator, loop: Loop, change: Callable[..., object], outcome: str) -> None:
    seen = len(loop.alerts())
    change(timeout=120)
    say.step(outcome)
    alert = loop.next_alert(seen, timeout=120, what="the message at the sink")
    say.step(f"one message delivered by the receiver: {alert.body.get('title')}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    say = Narrator()
    if LOGS.exists():
        shutil.rmtree(LOGS)
    scratch = Path(tempfile.mkdtemp(prefix="argocd-lifecycle-demo-"))
    try:
        build_tools(say)
        run(say, scratch)
    except (HarnessError, subprocess.CalledProcessError) as exc:
        print(f"error: {exc}\n(process logs: {LOGS})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; everything started was stopped", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"\ndone in {time.monotonic() - say.start:.0f}s; process logs: {LOGS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
