"""Run an upstream tool (helm, kustomize) as an argv list and turn failures into one clear error."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from argocd_lifecycle.errors import ToolError

#: keep the tail of a tool's stderr: the useful line is usually last, and the UI has little room
_MAX_STDERR = 1500
TOOL_TIMEOUT_SECONDS = 120


def _tool_env() -> dict[str, str]:
    env = dict(os.environ)
    # Helm wants writable cache/config folders; the sidecar's HOME may be read-only, /tmp is private.
    base = Path(tempfile.gettempdir()) / "argocd-lifecycle-helm"
    for var, sub in (
        ("HELM_CACHE_HOME", "cache"),
        ("HELM_CONFIG_HOME", "config"),
        ("HELM_DATA_HOME", "data"),
    ):
        env.setdefault(var, str(base / sub))
    return env


def trim(stderr: str) -> str:
    lines = [ln.rstrip() for ln in stderr.strip().splitlines() if ln.strip()]
    text = " | ".join(lines[-6:])
    return text if len(text) <= _MAX_STDERR else "..." + text[-_MAX_STDERR:]


def run_tool(tool: str, argv: list[str], *, cwd: Path) -> str:
    """Run ``argv`` (argv[0] is the binary) and return stdout; raise ToolError with its own message."""
    binary = shutil.which(argv[0])
    if binary is None:
        raise ToolError(
            f"{tool} not found ({argv[0]!r}); install it or set ARGOCD_LIFECYCLE_{tool.upper()} "
            "to its path (`make tools` builds the pinned version)"
        )
    try:
        proc = subprocess.run(
            [binary, *argv[1:]],
            cwd=cwd,
            env=_tool_env(),
            capture_output=True,
            text=True,
            timeout=TOOL_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise ToolError(f"{tool} did not finish within {TOOL_TIMEOUT_SECONDS}s") from exc
    except OSError as exc:
        raise ToolError(f"{tool} could not be started: {exc.strerror}") from exc
    if proc.returncode != 0:
        raise ToolError(f"{tool} failed (exit {proc.returncode}): {trim(proc.stderr) or 'no message'}")
    return proc.stdout
