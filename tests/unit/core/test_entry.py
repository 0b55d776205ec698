"""The console script: ``plugin generate`` (run by Argo CD for every render) takes the fast path without
click; every other invocation goes through the click CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# Runs the entry point as the console script would, then reports whether click was ever imported.
PROBE = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("click imported: %s\\n" % ("click" in sys.modules)))
sys.argv = ["argocd-lifecycle", *sys.argv[1:]]
from argocd_lifecycle.entry import main
main()
"""


def _run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=60
    )


def test_plugin_generate_renders_without_importing_click(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n")
    result = _run(tmp_path, "plugin", "generate")
    assert result.returncode == 0, result.stderr
    assert "kind: ConfigMap" in result.stdout and "name: demo" in result.stdout
    assert result.stderr.endswith("click imported: False\n")


def test_the_fast_path_keeps_the_error_contract(tmp_path: Path) -> None:
    result = _run(tmp_path, "plugin", "generate")  # an empty folder renders nothing: an error
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("error: ")


def test_anything_else_goes_through_click(tmp_path: Path) -> None:
    result = _run(tmp_path, "--version")
    assert result.returncode == 0 and result.stdout == "argocd-lifecycle, version 0.1.0\n"
    assert result.stderr.endswith("click imported: True\n")
