"""Benchmarks cannot rot: every script in benchmarks/ runs in its seconds-long ``--smoke`` mode (the same
code path on tiny sizes) and must finish cleanly. A benchmark whose stand-in no longer fits the code it
measures, or whose server answers errors, fails here instead of on the day someone wants figures.

No timings are asserted: the figures of a smoke run mean nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require_tool

REPO = Path(__file__).resolve().parents[3]
SCRIPTS = sorted((REPO / "benchmarks").glob("*.py"))
# what each script needs besides Python: upstream builds from `make tools`, and programs `make test` expects
UPSTREAM = {"bench_plugin.py": ("helm", "kustomize"), "bench_plugin_defences.py": ("helm", "kustomize")}
PROGRAMS = {"bench_generator_service.py": ("wrk", "nginx"), "bench_upstream_builds.py": ("go",)}
WHERE = {
    "wrk": "Debian package wrk: run `make system`",
    "nginx": "Debian package nginx: run `make system`",
    "go": "the Go toolchain `make tools` builds with (see CONTRIBUTING.md, a fresh machine)",
}


def _require_program(name: str) -> None:
    if shutil.which(name) is None and not Path("/usr/sbin", name).exists():
        pytest.fail(f"{name} is missing from PATH ({WHERE[name]})")


def _param(script: Path) -> object:
    marks = [pytest.mark.upstream] if script.name in UPSTREAM or script.name == "bench_upstream_builds.py" else []
    return pytest.param(script, id=script.stem, marks=marks)


def test_there_are_benchmarks_to_smoke() -> None:
    assert len(SCRIPTS) >= 7, [p.name for p in SCRIPTS]


@pytest.mark.parametrize("script", [_param(p) for p in SCRIPTS])
def test_benchmark_runs_in_smoke_mode(script: Path) -> None:
    for tool in UPSTREAM.get(script.name, ()):
        require_tool(tool)
    for program in PROGRAMS.get(script.name, ()):
        _require_program(program)
    result = subprocess.run(
        [sys.executable, str(script), "--smoke"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=240,
    )
    assert result.returncode == 0, (
        f"{script.name} --smoke exited {result.returncode}\n"
        f"--- stdout ---\n{result.stdout[-3000:]}\n--- stderr ---\n{result.stderr[-3000:]}"
    )
    assert result.stdout.strip(), f"{script.name} --smoke printed no figures"
