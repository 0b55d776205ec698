"""Deprecated-API `scan` and `convert` on a generated corpus of 20,000 objects in 400 files.

Side by side in one run, alternating so load drifts hit every side alike:
- floor:  parsing every file with PyYAML's libyaml loader (what any Python scanner has to pay at least)
- scan:   `scan_paths` for Kubernetes 1.33 (in-process), and the `argocd-lifecycle scan` command
- pluto:  `pluto detect-files -d DIR -t k8s=v1.33.0` when a pluto binary is on PATH (it cannot be built
          here: the Go module proxy answers 403 for github.com/fairwindsops/pluto/v5), else reported missing
- identify: every file's documents from their lines (plugin/stream/doc_text.py) and by libyaml's event walk
- convert: the engine on parsed objects (objects/s), and `convert` on the files end to end (parse,
           rewrite, write YAML)
Prints medians and ratios. Usage: .venv/bin/python benchmarks/bench_scan.py [--runs N] [--smoke]
``--smoke`` runs the same code on 10 files of 10 objects once (seconds; what `make test` runs so the
script cannot rot); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.plugin.rewrite.engine import Rewriter
from argocd_lifecycle.plugin.rewrite.files.convert_files import convert_text
from argocd_lifecycle.plugin.rewrite.files.scan_files import scan_paths
from argocd_lifecycle.plugin.rewrite.files.sources import list_sources, read
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved, Policy
from argocd_lifecycle.plugin.rewrite.scan import Scanner
from argocd_lifecycle.plugin.rewrite.target import Target
from argocd_lifecycle.plugin.stream.documents import index_documents, walk_documents
from argocd_lifecycle.yaml import yamlio

REPO = Path(__file__).resolve().parents[1]
CLI = str(REPO / ".venv" / "bin" / "argocd-lifecycle")
FILES, PER_FILE = 400, 50
SMOKE_FILES, SMOKE_PER_FILE = 10, 10
TARGET = (1, 33)

DEPLOYMENT = """apiVersion: {api}
kind: Deployment
metadata:
  name: app-{i}
  namespace: team-{team}
  labels: {{app: app-{i}, tier: web}}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: app-{i}}}
  template:
    metadata:
      labels: {{app: app-{i}}}
    spec:
      containers:
      - name: app
        image: registry.example.test/app:{i}
        ports: [{{containerPort: 8080, name: http}}]
        resources: {{requests: {{cpu: 100m, memory: 128Mi}}}}
"""
SERVICE = """apiVersion: v1
kind: Service
metadata: {{name: app-{i}, namespace: team-{team}}}
spec:
  selector: {{app: app-{i}}}
  ports: [{{port: 80, targetPort: http}}]
"""
CONFIGMAP = """apiVersion: v1
kind: ConfigMap
metadata: {{name: app-{i}, namespace: team-{team}}}
data: {{LOG_LEVEL: info, FEATURE_X: "on"}}
"""
INGRESS = """apiVersion: {api}
kind: Ingress
metadata: {{name: app-{i}, namespace: team-{team}}}
spec:
  rules:
  - host: app-{i}.example.test
    http:
      paths:
      - path: /
        backend: {backend}
"""
CRONJOB = """apiVersion: batch/v1beta1
kind: CronJob
metadata: {{name: job-{i}, namespace: team-{team}}}
spec:
  schedule: "0 3 * * *"
  jobTemplate: {{spec: {{template: {{spec: {{restartPolicy: OnFailure, containers: [{{name: j, image: x}}]}}}}}}}}
"""
PDB = """apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {{name: app-{i}, namespace: team-{team}}}
spec: {{minAvailable: 1, selector: {{matchLabels: {{app: app-{i}}}}}}}
"""
HPA = """apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata: {{name: app-{i}, namespace: team-{team}}}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: app-{i}}}
  maxReplicas: 5
  metrics: [{{type: Resource, resource: {{name: cpu, target: {{type: Utilization, averageUtilization: 70}}}}}}]
"""


def document(i: int) -> str:
    """About 10% of the objects use an API that 1.33 no longer serves."""
    team = i % 17
    slot = i % 20
    if slot == 0:
        backend = f"{{serviceName: app-{i}, servicePort: 80}}"
        return INGRESS.format(api="extensions/v1beta1", i=i, team=team, backend=backend)
    if slot == 1:
        return DEPLOYMENT.format(api="apps/v1beta2", i=i, team=team)
    if slot in (2, 3):
        return (CRONJOB, PDB)[slot - 2].format(i=i, team=team)
    if slot == 4:
        backend = f"{{service: {{name: app-{i}, port: {{number: 80}}}}}}"
        return INGRESS.format(api="networking.k8s.io/v1", i=i, team=team, backend=backend).replace(
            "      - path: /\n", "      - path: /\n        pathType: Prefix\n"
        )
    if slot == 5:
        return HPA.format(i=i, team=team)
    return (DEPLOYMENT, SERVICE, CONFIGMAP)[slot % 3].format(api="apps/v1", i=i, team=team)


def make_corpus(root: Path, files: int, per_file: int) -> None:
    for f in range(files):
        docs = [document(f * per_file + k) for k in range(per_file)]
        (root / f"team-{f % 17:02d}").mkdir(exist_ok=True)
        (root / f"team-{f % 17:02d}" / f"app-{f:03d}.yaml").write_text("---\n".join(docs), encoding="utf-8")


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def run_cli(*argv: str, expect: int = 0) -> None:
    """Run our CLI; any other exit code than ``expect`` (scan exits 3 when removed APIs are found) stops the run."""
    proc = subprocess.run([CLI, *argv], capture_output=True, text=True, check=False)
    if proc.returncode != expect:
        raise SystemExit(f"argocd-lifecycle {argv[0]} exited {proc.returncode}, not {expect}: {proc.stderr[-500:]}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="tiny corpus, one run: checks the script still works")
    args = parser.parse_args()
    files, per_file = (SMOKE_FILES, SMOKE_PER_FILE) if args.smoke else (FILES, PER_FILE)
    if args.smoke:
        args.runs = 1
    pluto = shutil.which("pluto")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp)
        make_corpus(corpus, files, per_file)
        sources = list_sources([str(corpus)])
        texts = [read(s) for s in sources]
        objects = [d for t in texts for d in yamlio.load_all(t) if d]
        if len(sources) != files or len(objects) != files * per_file:
            raise SystemExit(
                f"corpus: {len(objects)} objects in {len(sources)} files, not {files * per_file} in {files}"
            )
        kb = builtin()
        findings = scan_paths([str(corpus)], Scanner(kb, TARGET))[0]

        def floor_with_reads() -> None:
            for s in sources:
                list(yaml.load_all(read(s), Loader=yaml.CSafeLoader))

        def scan() -> None:
            scan_paths([str(corpus)], Scanner(kb, TARGET))

        def engine() -> None:
            Rewriter(kb, Target.of(TARGET), Policy(OnRemoved.KEEP)).rewrite_all(objects)

        legacy = [o for o in objects if kb.lookup(o["apiVersion"], o["kind"]) is not None]

        def engine_legacy() -> None:
            Rewriter(kb, Target.of(TARGET), Policy(OnRemoved.KEEP)).rewrite_all(legacy)

        def convert_files() -> None:
            rw = Rewriter(kb, Target.of(TARGET), Policy(OnRemoved.KEEP))
            for s, t in zip(sources, texts, strict=True):
                convert_text(s, t, rw)

        def index_lines() -> None:
            for t in texts:
                index_documents(t)

        def index_walk() -> None:
            for t in texts:
                walk_documents(t)

        sides: dict[str, Callable[[], object]] = {
            "floor: libyaml parse of every file (read included)": floor_with_reads,
            "identify documents from their lines (every file)": index_lines,
            "identify documents by the event walk (every file)": index_walk,
            "scan_paths (in-process)": scan,
            "argocd-lifecycle scan (process)": lambda: run_cli(
                "scan", str(corpus), "-t", "1.33", "-o", "json", expect=3
            ),
            "convert engine, all objects (parsed)": engine,
            "convert engine, objects with a rule (parsed)": engine_legacy,
            "convert_text on every file (parse+rewrite+dump)": convert_files,
            "argocd-lifecycle convert (process)": lambda: run_cli(
                "convert", str(corpus), "-t", "1.33", "--on-removed", "keep"
            ),
        }
        if pluto:
            sides["pluto detect-files"] = lambda: run_cli_abs(
                pluto, "detect-files", "-d", str(corpus), "-t", "k8s=v1.33.0"
            )
        samples: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(args.runs):
            for name, fn in sides.items():
                samples[name].append(timed(fn))
        med = {name: statistics.median(values) for name, values in samples.items()}

    n = files * per_file
    print(f"corpus: {n} objects in {files} files, {len(findings)} findings for 1.33, {len(legacy)} with a rule")
    print(f"load average: {load_before:.1f} before, {os.getloadavg()[0]:.1f} after (2 cores)\n")
    print(f"{'side':52} {'median':>10} {'objects/s':>12}")
    for name, value in med.items():
        count = len(legacy) if "with a rule" in name else n
        print(f"{name:52} {value * 1000:8.0f} ms {count / value:12,.0f}")
    base = med["floor: libyaml parse of every file (read included)"]
    print()
    lines, walk = (med[f"identify documents {how} (every file)"] for how in ("from their lines", "by the event walk"))
    print(f"identify: lines / walk:       {lines / walk:.2f}")
    print(f"scan_paths / floor:           {med['scan_paths (in-process)'] / base:.2f}")
    print(f"scan command / floor:         {med['argocd-lifecycle scan (process)'] / base:.2f}")
    if pluto:
        print(f"scan command / pluto:         {med['argocd-lifecycle scan (process)'] / med['pluto detect-files']:.2f}")
    else:
        print("pluto: not available (the Go module proxy answers 403 for github.com/fairwindsops/pluto/v5)")
    print(f"convert_text / floor:         {med['convert_text on every file (parse+rewrite+dump)'] / base:.2f}")
    print(f"convert command / floor:      {med['argocd-lifecycle convert (process)'] / base:.2f}")
    print(f"convert command objects/s:    {n / med['argocd-lifecycle convert (process)']:,.0f} (target >= 20,000)")


def run_cli_abs(binary: str, *argv: str) -> None:
    subprocess.run([binary, *argv], capture_output=True, check=False)


if __name__ == "__main__":
    main()
