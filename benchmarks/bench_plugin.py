"""Plugin render overhead: `plugin generate` against the bare tool on the same input, side by side.

- 500-object Kustomize app: `argocd-lifecycle plugin generate` vs `kustomize build`
- 500-object Helm chart:    `argocd-lifecycle plugin generate` vs `helm template`
- cold start of `plugin generate` on a 20-object plain app (with `python -c pass` as the floor)
- in-process: the Kustomize and Helm output identified from its lines and by libyaml's event walk
- in-process: a plain app's 500 files read as written (pass-through) against loaded and written out

Runs alternate (ours, theirs, ours, ...) so load drifts hit both sides alike. Prints medians, ratios and
the targets. The generated apps need no rewrite for the target, so every object passes through as the
tool emitted it: what this measures is the plugin's own cost around the tool.
Usage: .venv/bin/python benchmarks/bench_plugin.py [--runs N] [--smoke]
``--smoke`` runs the same code on 20-object apps once (seconds; what `make test` runs so the script
cannot rot); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOOLS = Path(
    subprocess.run([str(REPO / "tools/build.sh"), "--path"], capture_output=True, text=True, check=True).stdout.strip()
)
CLI = str(REPO / ".venv" / "bin" / "argocd-lifecycle")
ENV = {
    # as installed (the image compiles its modules): a shell with PYTHONDONTWRITEBYTECODE would make every
    # run recompile our modules from source, about 30 ms that no sidecar pays
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PATH": f"{TOOLS}:{os.environ['PATH']}",
    "ARGOCD_APP_NAME": "bench",
    "ARGOCD_APP_NAMESPACE": "bench",
    "KUBE_VERSION": "1.31.2",
    "KUBE_API_VERSIONS": "apps/v1,apps/v1/Deployment,v1,v1/ConfigMap,v1/Service",
    "ARGOCD_ENV_CLUSTER_NAME": "bench",
    "ARGOCD_ENV_CLUSTER_PHASE": "Ready",
}

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-{i}
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
        - name: web
          image: nginx:1.27
          ports: [{{containerPort: 80}}]
          env: [{{name: A, value: "1"}}, {{name: B, value: "2"}}]
          resources: {{limits: {{cpu: 100m, memory: 64Mi}}}}
"""
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg-{i}\ndata:\n  key: value-{i}\n  other: x\n"


def objects(n: int) -> list[str]:
    return [(DEPLOYMENT if i % 2 else CONFIGMAP).format(i=i) for i in range(n)]


def make_kustomize(root: Path, n: int) -> Path:
    app = root / "kustomize"
    (app / "res").mkdir(parents=True)
    names = []
    for i, text in enumerate(objects(n)):
        (app / "res" / f"o{i:04d}.yaml").write_text(text)
        names.append(f"res/o{i:04d}.yaml")
    (app / "kustomization.yaml").write_text("namespace: bench\nresources:\n" + "".join(f"- {n}\n" for n in names))
    return app


def make_helm(root: Path, n: int) -> Path:
    app = root / "helm"
    (app / "templates").mkdir(parents=True)
    (app / "Chart.yaml").write_text("apiVersion: v2\nname: bench\nversion: 0.1.0\n")
    (app / "values.yaml").write_text("image: nginx:1.27\n")
    for i, text in enumerate(objects(n)):
        (app / "templates" / f"o{i:04d}.yaml").write_text(text.replace("nginx:1.27", "{{ .Values.image }}"))
    return app


def make_plain(root: Path, n: int, name: str = "plain") -> Path:
    app = root / name
    app.mkdir()
    for i, text in enumerate(objects(n)):
        (app / f"o{i:04d}.yaml").write_text(text)
    return app


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user+sys of the command and its children, e.g. helm under our CLI)."""
    cpu0, start = _child_cpu(), time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed, cpu = time.perf_counter() - start, _child_cpu() - cpu0
    if proc.returncode != 0:
        sys.exit(f"{argv[0]} failed: {proc.stderr.decode()[-500:]}")
    return elapsed, cpu


def side_by_side(name: str, ours: list[str], theirs: list[str], cwd: Path, runs: int, target: str) -> None:
    timed(ours, cwd), timed(theirs, cwd)  # warm the page cache
    a, b = [], []
    for _ in range(runs):
        a.append(timed(ours, cwd))
        b.append(timed(theirs, cwd))
    wa, wb = statistics.median(x for x, _ in a), statistics.median(x for x, _ in b)
    ca, cb = statistics.median(y for _, y in a), statistics.median(y for _, y in b)
    print(
        f"{name:<30} wall: ours {wa * 1000:7.1f} ms  bare {wb * 1000:7.1f} ms  ratio {wa / wb:5.2f}   "
        f"cpu: ours {ca * 1000:6.1f} ms  bare {cb * 1000:6.1f} ms  ratio {ca / cb:5.2f}   target {target}"
    )


def identification(name: str, argv: list[str], cwd: Path, runs: int) -> None:
    """In-process: the tool's output identified from its lines and by the event walk (what each
    document is, without building it), on the same text."""
    from argocd_lifecycle.plugin.stream.documents import index_documents, walk_documents

    text = subprocess.run(argv, cwd=cwd, env=ENV, capture_output=True, text=True, check=True).stdout
    lines: list[float] = []
    walk: list[float] = []
    for _ in range(runs):
        for side, fn in ((lines, index_documents), (walk, walk_documents)):
            start = time.perf_counter()
            fn(text)
            side.append(time.perf_counter() - start)
    a, b = statistics.median(lines), statistics.median(walk)
    print(f"{name:<30} identify: lines {a * 1000:6.1f} ms  event walk {b * 1000:6.1f} ms  ratio {a / b:5.2f}")


def plain_files(name: str, app: Path, runs: int) -> None:
    """In-process: a plain app's files read and printed as the plugin does (each document identified
    from its text and printed as written) against loading every object and writing it out."""
    from argocd_lifecycle.plugin.stream.parse import parse_stream
    from argocd_lifecycle.plugin.stream.passthrough import read_stream
    from argocd_lifecycle.yaml import yamlio

    files = [(p.name, p.read_text()) for p in sorted(app.glob("*.yaml"))]
    kept: list[float] = []
    written: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        "".join(m.text or "" for name, text in files for m in read_stream(text, name))
        kept.append(time.perf_counter() - start)
        start = time.perf_counter()
        "".join(yamlio.dump(m.obj) for name, text in files for m in parse_stream(text, name))
        written.append(time.perf_counter() - start)
    a, b = statistics.median(kept), statistics.median(written)
    print(f"{name:<30} as written {a * 1000:6.1f} ms  loaded + written out {b * 1000:6.1f} ms  ratio {a / b:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--objects", type=int, default=500, help="objects of the Kustomize app and the Helm chart")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one run: checks the script still works")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.objects = 1, 20
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        kapp, happ, papp = make_kustomize(root, args.objects), make_helm(root, args.objects), make_plain(root, 20)
        big = make_plain(root, args.objects, "plain-big")
        print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {args.runs} runs each")
        kustomize = [str(TOOLS / "kustomize"), "build", "."]
        helm = [str(TOOLS / "helm"), "template", "bench", ".", "--namespace", "bench", "--include-crds"]
        helm += ["--kube-version", "1.31.2"]
        side_by_side(
            f"kustomize, {args.objects} objects", [CLI, "plugin", "generate"], kustomize, kapp, args.runs, "<= 1.10"
        )
        side_by_side(
            f"helm, {args.objects} objects",
            [CLI, "plugin", "generate"],
            helm,
            happ,
            args.runs,
            "<= 1.5 (moonshot 1.15)",
        )
        side_by_side(
            "cold start, plain 20 objects",
            [CLI, "plugin", "generate"],
            [sys.executable, "-c", "pass"],
            papp,
            args.runs,
            "<= 5 (python -c pass)",
        )
        identification(f"kustomize output, {args.objects}", kustomize, kapp, args.runs)
        identification(f"helm output, {args.objects}", helm, happ, args.runs)
        plain_files(f"plain app, {args.objects} files", big, args.runs)


if __name__ == "__main__":
    main()
