"""The upgrade preflight on a fleet's worth of Applications: 2,000 Applications of 20 resources each, spread
over 20 clusters (what `kubectl get applications -o json` prints for a big Argo CD: about 60 MB).

Side by side in one run, alternating so load drifts hit every side alike:
- floor:     `json.loads` of the file (what any reader of that output has to pay at least)
- offline:   `read_files` + `evaluate` in-process for one cluster (parse, check, judge every object)
- gate:      one gate evaluation of one cluster from the records already in memory (what each
             Application change costs the generator), and evaluations per second
- cli:       `argocd-lifecycle preflight CLUSTER --to 1.37 --from-file ...` end to end (a process)
Prints medians and ratios. Usage: .venv/bin/python benchmarks/bench_preflight.py [--runs N] [--smoke]
``--smoke`` runs the same code on 20 Applications once (seconds; what `make test` runs so the script
cannot rot); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import base64
import json
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.generators.preflight import sources
from argocd_lifecycle.generators.preflight.clusters import resolve
from argocd_lifecycle.generators.preflight.evaluate import evaluate

REPO = Path(__file__).resolve().parents[1]
CLI = str(REPO / ".venv" / "bin" / "argocd-lifecycle")
APPS, RESOURCES, CLUSTERS = 2000, 20, 20
SMOKE_CLUSTERS = 2
SMOKE_APPS = 20
TARGET = (1, 37)
# a realistic mix: mostly current APIs, a few on their way out
KINDS = [
    ("apps", "v1", "Deployment"), ("", "v1", "Service"), ("", "v1", "ConfigMap"), ("", "v1", "Secret"),
    ("networking.k8s.io", "v1", "Ingress"), ("autoscaling", "v2", "HorizontalPodAutoscaler"),
    ("policy", "v1", "PodDisruptionBudget"), ("batch", "v1", "CronJob"), ("rbac.authorization.k8s.io", "v1", "Role"),
    ("storage.k8s.io", "v1beta1", "VolumeAttributesClass"), ("networking.k8s.io", "v1beta1", "ServiceCIDR"),
]  # fmt: skip


def server(i: int) -> str:
    return f"https://cluster-{i:02}.example.test:6443"


def application(i: int, clusters: int) -> dict[str, Any]:
    resources = []
    for r in range(RESOURCES):
        group, version, kind = KINDS[(i + r) % len(KINDS)]
        resources.append({"group": group, "version": version, "kind": kind, "namespace": f"team-{i}",
                          "name": f"obj-{r}", "status": "Synced", "health": {"status": "Healthy"}})  # fmt: skip
    source: dict[str, Any] = {"repoURL": "https://git.example.test/fleet.git", "path": f"apps/{i}"}
    if i % 3 == 0:  # a third rendered by our plugin
        source["plugin"] = {"name": "argocd-lifecycle-v1"}
    return {
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": f"app-{i}", "namespace": "argocd", "resourceVersion": str(i)},
        "spec": {"project": "default", "destination": {"server": server(i % clusters), "namespace": f"team-{i}"},
                 "source": source},
        "status": {"resources": resources, "sourceType": "Plugin" if i % 3 == 0 else "Directory",
                   "sync": {"status": "Synced", "revision": "a" * 40}, "reconciledAt": "2026-01-02T15:04:05Z"},
    }  # fmt: skip


def secret(i: int) -> dict[str, Any]:
    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    return {
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": f"cluster-{i:02}", "namespace": "argocd",
                     "labels": {"argocd.argoproj.io/secret-type": "cluster"},
                     "annotations": {"argocd-lifecycle.io/kubernetes-version": "1.34.2"}},
        "data": {"name": b64(f"cluster-{i:02}"), "server": b64(server(i)), "config": b64("{}")},
    }  # fmt: skip


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    apps, runs, clusters = (SMOKE_APPS, 1, SMOKE_CLUSTERS) if args.smoke else (APPS, args.runs, CLUSTERS)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        apps_file, secrets_file = folder / "applications.json", folder / "secrets.json"
        apps_file.write_text(
            json.dumps({"apiVersion": "v1", "kind": "List", "items": [application(i, clusters) for i in range(apps)]})
        )
        secrets_file.write_text(
            json.dumps({"apiVersion": "v1", "kind": "List", "items": [secret(i) for i in range(clusters)]})
        )
        kb = builtin()
        inputs = sources.read_files([apps_file, secrets_file])
        cluster = resolve("cluster-01", inputs.secrets)
        report = evaluate(kb, cluster, inputs.apps, TARGET)
        assert report.blockers, "the corpus must hold blockers, or the benchmark measures nothing"

        def offline() -> None:
            found = sources.read_files([apps_file, secrets_file])
            evaluate(kb, resolve("cluster-01", found.secrets), found.apps, TARGET)

        def cli() -> None:
            argv = [CLI, "preflight", "cluster-01", "--to", "1.37", "-o", "json",
                    "--from-file", str(apps_file), "--from-file", str(secrets_file)]  # fmt: skip
            done = subprocess.run(argv, capture_output=True, check=False)
            if done.returncode != 3:
                raise SystemExit(f"preflight exited {done.returncode}, expected 3: {done.stderr.decode()[-500:]}")

        sides: dict[str, Callable[[], object]] = {
            "floor json.loads": lambda: json.loads(apps_file.read_bytes()),
            "offline read+evaluate": offline,
            "gate evaluate (in memory)": lambda: evaluate(kb, cluster, inputs.apps, TARGET),
            "cli end to end": cli,
        }
        times: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(runs):
            for name, fn in sides.items():
                times[name].append(timed(fn))
    medians = {name: statistics.median(t) for name, t in times.items()}
    floor = medians["floor json.loads"]
    print(f"{apps} Applications x {RESOURCES} resources over {clusters} clusters; {runs} run(s); "
          f"{report.objects} objects of cluster-01, {len(report.blockers)} blockers")  # fmt: skip
    for name, median in medians.items():
        print(f"  {name:28} {median * 1000:9.1f} ms   {median / floor:6.2f}x floor")
    print(f"  gate: {1 / medians['gate evaluate (in memory)']:.0f} evaluations/s of one cluster ({apps} Applications)")


if __name__ == "__main__":
    main()
