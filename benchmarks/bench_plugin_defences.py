"""What the plugin's input defences cost: `plugin generate` of this tree against the same command of an
earlier tree (the one before the defences), side by side on bench_plugin.py's apps, then each defence's
own step timed in process.

1. Before/after: bench_plugin.py's three cases (500-object Kustomize app, 500-object Helm chart, cold
   start on a 20-object plain app), each run by both trees' `plugin generate` alternately (the order
   flips every round, so load drifts hit both alike), with the same interpreter and the same installed
   libraries; medians of wall and CPU time and the ratio now / before. Each tree runs from a link tree
   that maps its folders onto the package as pyproject.toml does, so both start up the same way.
   Without ``--before`` this tree runs against itself: the ratios then show the noise of the machine.
2. In process, each step a render takes to refuse hostile input, next to the work it guards: reading
   and checking the settings, the symlink and loop walk, the kustomization check, the bounded YAML
   loader beside libyaml's stock one, masking diagnostics.

Usage (the earlier tree from git, outside this working tree):
  mkdir /tmp/before && git archive <commit> core plugin generators notifications | tar -x -C /tmp/before
  .venv/bin/python benchmarks/bench_plugin_defences.py --before /tmp/before [--runs N] [--now TREE]
``--now`` measures another tree in place of this one (a fixed commit while the working tree changes).
``--instructions`` also counts the instructions of each tree's own process, one run per case after a
warm-up, under ``valgrind --tool=callgrind`` with ``PYTHONHASHSEED=0`` (helm and kustomize are not
traced): unlike times, they do not move with the load or the machine's speed.
``--smoke`` runs the same code on 20 objects once, this tree against itself (seconds; what `make test`
runs); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from argocd_lifecycle.plugin.masking import Masker  # noqa: E402
from argocd_lifecycle.plugin.render import kustomize_refs  # noqa: E402
from argocd_lifecycle.plugin.settings import PluginSettings  # noqa: E402
from argocd_lifecycle.plugin.walk import check_symlinks, manifest_files  # noqa: E402
from argocd_lifecycle.yaml import yamlio  # noqa: E402
from benchmarks.bench_plugin import ENV, make_helm, make_kustomize, make_plain, objects  # noqa: E402 - same apps

#: the package's folders, as pyproject.toml maps them (the core folder is the package itself)
PARTS = ("plugin", "generators", "notifications", "app")
# the console script of either layout: the application shell's (issue 25) or core's before it
LAUNCH = (
    "import sys\ntry:\n    from argocd_lifecycle.app.entry import main\nexcept ModuleNotFoundError:\n"
    "    from argocd_lifecycle.entry import main\nsys.argv[0] = 'argocd-lifecycle'\nmain()"
)


def link_tree(source: Path, dest: Path) -> Path:
    """A folder holding ``argocd_lifecycle`` laid out from ``source`` as the editable install lays it out."""
    package = dest / "argocd_lifecycle"
    package.mkdir(parents=True)
    for entry in (source / "core").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry.resolve())
    for part in PARTS:
        if (source / part).is_dir():
            (package / part).symlink_to((source / part).resolve())
    # the tree's own modules must win over the installed package (PYTHONPATH comes first on sys.path)
    probe = "import argocd_lifecycle.plugin.generate as m; print(m.__file__)"
    env = {**ENV, "PYTHONPATH": str(dest)}
    found = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, check=False)
    if not found.stdout.decode().startswith(str(dest)):
        sys.exit(f"{source}: its plugin is not the one imported ({found.stdout.decode().strip()})")
    return dest


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(path: Path, cwd: Path) -> tuple[float, float, bytes]:
    """Wall time, CPU time (the process and its children: helm or kustomize) and stdout of one render."""
    env = {**ENV, "PYTHONPATH": str(path)}
    argv = [sys.executable, "-c", LAUNCH, "plugin", "generate"]
    cpu0, start = _child_cpu(), time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    elapsed, cpu = time.perf_counter() - start, _child_cpu() - cpu0
    if proc.returncode != 0:
        sys.exit(f"plugin generate from {path} failed: {proc.stderr.decode()[-500:]}")
    return elapsed, cpu, proc.stdout


def before_after(name: str, before: Path, now: Path, cwd: Path, runs: int) -> None:
    same = timed(before, cwd)[2] == timed(now, cwd)[2]  # also warms the page cache and writes the bytecode
    times: dict[Path, list[tuple[float, float]]] = {before: [], now: []}
    for i in range(runs):
        for path in (before, now) if i % 2 == 0 else (now, before):
            times[path].append(timed(path, cwd)[:2])
    (wb, cb), (wn, cn) = (
        (statistics.median(w for w, _ in times[p]), statistics.median(c for _, c in times[p])) for p in (before, now)
    )
    print(
        f"{name:<30} wall: before {wb * 1000:7.1f} ms  now {wn * 1000:7.1f} ms  ratio {wn / wb:5.3f}   "
        f"cpu: before {cb * 1000:6.1f} ms  now {cn * 1000:6.1f} ms  ratio {cn / cb:5.3f}   "
        f"output {'identical' if same else 'differs'}"
    )


def instructions(path: Path, cwd: Path) -> int:
    """Instructions of one render's own process (its children, helm or kustomize, not traced)."""
    env = {**ENV, "PYTHONPATH": str(path), "PYTHONHASHSEED": "0"}
    argv = [sys.executable, "-c", LAUNCH, "plugin", "generate"]
    timed(path, cwd)  # bytecode written, page cache warm
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--trace-children=no"]
    proc = subprocess.run([*valgrind, *argv], cwd=cwd, env=env, capture_output=True, check=False)
    found = re.search(rb"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        sys.exit(f"plugin generate from {path} under valgrind failed: {proc.stderr.decode()[-500:]}")
    return int(found.group(1))


def instructions_before_after(name: str, before: Path, now: Path, cwd: Path) -> None:
    ib, i_n = instructions(before, cwd), instructions(now, cwd)
    print(f"{name:<30} instructions: before {ib / 1e6:7.1f} M  now {i_n / 1e6:7.1f} M  ratio {i_n / ib:5.3f}")


def median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # warm caches
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def steps(root: Path, objects_n: int, runs: int) -> None:
    (root / ".git").mkdir(parents=True)
    kapp, papp = make_kustomize(root, objects_n), make_plain(root, objects_n)
    for base in ("base-a", "base-b"):
        (root / base).mkdir()
        (root / base / "kustomization.yaml").write_text("resources: []\n")
    text = (kapp / "kustomization.yaml").read_text()
    (kapp / "kustomization.yaml").write_text(text.replace("resources:\n", "resources:\n- ../base-a\n- ../base-b\n"))
    stream = "".join("---\n" + o for o in objects(objects_n))
    env = {
        **ENV,
        "ARGOCD_ENV_DB_PASS": "hunter2-value",
        "ARGOCD_APP_PARAMETERS": '[{"name":"releaseName","string":"bench"}]',
    }
    settings = PluginSettings.from_environ(env, app_dir=kapp)
    masker = Masker({f"secret-value-{i:03d}" for i in range(50)})
    lines = [f"warning: Deployment/app-{i} (res/o{i:04d}.yaml#0): something about it" for i in range(100)]

    def walk() -> list[Path]:
        check_symlinks(papp)
        return manifest_files(papp, follow_links=True)

    cases: list[tuple[str, Callable[[], object]]] = [
        ("settings (validate parameters and Argo CD's values)", lambda: PluginSettings.from_environ(env, app_dir=kapp)),
        (f"walk: symlinks and loops, {objects_n} files", walk),
        (
            f"kustomization check, {objects_n} resources + 2 bases",
            lambda: kustomize_refs.check(kapp, root, allow_remote=False, limits=settings.limits),
        ),
        ("mask 100 lines, 50 secrets", lambda: [masker.mask(line) for line in lines]),
    ]
    print(f"in process, {runs} runs each, medians")
    for name, fn in cases:
        print(f"  {name:<56} {median_ms(fn, runs):8.2f} ms")
    bounded = median_ms(lambda: list(yamlio.load_all(stream)), runs)
    stock = median_ms(lambda: list(yaml.load_all(stream, Loader=yaml.CSafeLoader)), runs)
    print(f"  {f'YAML, {objects_n} objects: bounded loader':<56} {bounded:8.2f} ms")
    print(f"  {f'YAML, {objects_n} objects: libyaml stock loader':<56} {stock:8.2f} ms  ratio {bounded / stock:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--objects", type=int, default=500, help="objects of the Kustomize app and the Helm chart")
    parser.add_argument("--before", type=Path, help="a source tree of an earlier commit (default: this tree)")
    parser.add_argument("--now", type=Path, help="the source tree measured as now (default: this tree)")
    parser.add_argument("--instructions", action="store_true", help="also count instructions under valgrind")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one run: checks the script still works")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.objects, args.before, args.now, args.instructions = 1, 20, None, None, False
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        before = link_tree(args.before or REPO, root / "before")
        now = link_tree(args.now or REPO, root / "now")
        apps = root / "apps"
        apps.mkdir()
        kapp, happ, papp = make_kustomize(apps, args.objects), make_helm(apps, args.objects), make_plain(apps, 20)
        print(
            f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {args.runs} runs each; "
            f"before: {args.before or 'this tree'}, now: {args.now or 'this tree'}"
        )
        before_after(f"kustomize, {args.objects} objects", before, now, kapp, args.runs)
        before_after(f"helm, {args.objects} objects", before, now, happ, args.runs)
        before_after("cold start, plain 20 objects", before, now, papp, args.runs)
        if args.instructions:
            instructions_before_after(f"kustomize, {args.objects} objects", before, now, kapp)
            instructions_before_after(f"helm, {args.objects} objects", before, now, happ)
            instructions_before_after("cold start, plain 20 objects", before, now, papp)
        steps(root / "steps", args.objects, args.runs)
        print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
