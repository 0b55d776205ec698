"""The built image for the tests: its description, its unpacked root file system, and running in it.

`make image` (tools/image/build.sh) builds it; a missing image FAILS the tests that need it (never a skip).
Commands run through tools/image/run.sh: read-only root, an emptyDir on /tmp, uid/gid 999, pid 1.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
IMAGE_DIR = REPO / "build" / "image"
ARCHIVE = IMAGE_DIR / "argocd-lifecycle.oci.tar"
TOOLS = REPO / "tools" / "image"


def description() -> dict[str, Any]:
    path = IMAGE_DIR / "argocd-lifecycle.json"
    if not ARCHIVE.exists() or not path.exists():
        pytest.fail(f"{ARCHIVE} is missing: run `make image` (tools/image/build.sh)", pytrace=False)
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def unpacked() -> Path:
    description()
    out = subprocess.run([str(TOOLS / "unpack.sh"), str(ARCHIVE)], capture_output=True, text=True, check=False)
    if out.returncode:
        pytest.fail(f"tools/image/unpack.sh failed: {out.stderr.strip()}", pytrace=False)
    return Path(out.stdout.strip())


def run_argv(
    root: Path,
    argv: Sequence[str],
    *,
    mounts: Sequence[tuple[Path, str]] = (),
    env: Mapping[str, str] | None = None,
    workdir: str = "/tmp",
    net: bool = True,
    scratch: Path,
) -> list[str]:
    cmd = [str(TOOLS / "run.sh"), str(root), "--scratch", str(scratch), "--workdir", workdir]
    if net:
        cmd.append("--net")
    for src, dest in mounts:
        cmd += ["--mount", f"{src}:{dest}"]
    for name, value in (env or {}).items():
        cmd += ["--env", f"{name}={value}"]
    return [*cmd, "--", *argv]


def run(root: Path, argv: Sequence[str], *, timeout: float = 120, **options: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(run_argv(root, argv, **options), capture_output=True, text=True, timeout=timeout, check=False)
