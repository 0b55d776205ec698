"""The built image for the tests: its description, its unpacked root file system, and running in it.

`make image` (tools/image/build.sh) builds it; a missing image FAILS the tests that need it (never a skip).
Commands run through tools/image/run.sh (tests/harness/image.py): read-only root, an emptyDir on
/tmp, uid/gid 999, pid 1.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.harness import image
from tests.harness.image import ARCHIVE, Mount
from tests.harness.paths import REPO
from tests.harness.procs import HarnessError

__all__ = ["ARCHIVE", "REPO", "Mount", "description", "run", "unpacked"]


def description() -> dict[str, Any]:
    path = ARCHIVE.parent / "argocd-lifecycle.json"
    if not ARCHIVE.exists() or not path.exists():
        pytest.fail(f"{ARCHIVE} is missing: run `make image` (tools/image/build.sh)", pytrace=False)
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def unpacked() -> Path:
    description()
    try:
        return image.root_filesystem()
    except HarnessError as exc:
        pytest.fail(str(exc), pytrace=False)


def run(
    root: Path,
    argv: Sequence[str],
    *,
    scratch: Path,
    mounts: Sequence[tuple[Path, str]] = (),
    env: Mapping[str, str] | None = None,
    workdir: str = "/tmp",
    net: bool = True,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in the image (read-only volumes ``mounts``; ``net``: loopback of its own) to its end."""
    cmd = image.container_argv(
        root, argv, scratch=scratch, mounts=[Mount(s, d) for s, d in mounts], env=env, workdir=workdir, net=net
    )
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
