"""The console script: ``plugin generate`` (run by Argo CD for every render) takes the fast path without
click; every other invocation goes through the click CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Runs the entry point as the console script would, then writes every module it imported (last line of stderr).
# The render's fast path leaves through os._exit (no exit handlers run), so the probe wraps that too.
PROBE = """
import atexit, json, os, sys
report = lambda: sys.stderr.write("\\n" + json.dumps(sorted(sys.modules)) + "\\n")
atexit.register(report)
leave = os._exit
os._exit = lambda code: (report(), sys.stderr.flush(), leave(code))
sys.argv = ["argocd-lifecycle", *sys.argv[1:]]
from argocd_lifecycle.app.entry import main
main()
"""


def run_entry(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def imported_modules(result: subprocess.CompletedProcess[str]) -> set[str]:
    """The modules the process of ``run_entry`` had imported when it ended."""
    return set(json.loads(result.stderr.splitlines()[-1]))


def test_plugin_generate_renders_without_importing_click(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n")
    result = run_entry(tmp_path, "plugin", "generate")
    assert result.returncode == 0, result.stderr
    assert "kind: ConfigMap" in result.stdout and "name: demo" in result.stdout
    assert "click" not in imported_modules(result)  # the rest: tests/unit/plugin/test_plugin_lean_start.py


def test_the_fast_path_keeps_the_error_contract(tmp_path: Path) -> None:
    result = run_entry(tmp_path, "plugin", "generate")  # an empty folder renders nothing: an error
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("error: ")


def test_anything_else_goes_through_click(tmp_path: Path) -> None:
    result = run_entry(tmp_path, "--version")
    assert result.returncode == 0 and result.stdout == "argocd-lifecycle, version 0.1.0\n"
    assert "click" in imported_modules(result)


def test_a_reader_that_goes_away_gets_exit_1_and_no_traceback(tmp_path: Path) -> None:
    # more than a pipe holds, so the write meets the closed pipe
    body = "".join(f"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n" for i in range(5000))
    (tmp_path / "cms.yaml").write_text(body)
    proc = subprocess.Popen(
        [sys.executable, "-c", PROBE, "plugin", "generate"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err
