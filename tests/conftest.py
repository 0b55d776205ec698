"""Shared test setup: the pinned upstream tools (`make tools`) come first on PATH."""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.argocd_versions import RELEASES, ArgocdRelease

REPO = Path(__file__).resolve().parents[1]
TOOLS_BIN = Path(
    subprocess.run(
        [str(REPO / "tools" / "build.sh"), "--path"], capture_output=True, text=True, check=True
    ).stdout.strip()
)
os.environ["PATH"] = f"{TOOLS_BIN}{os.pathsep}{REPO / '.venv' / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"


def require_tool(name: str) -> Path:
    """The path of an upstream binary from `make tools`; a missing one fails the test (never skips)."""
    path = TOOLS_BIN / name
    if not path.exists():
        pytest.fail(f"{name} is missing from {TOOLS_BIN}: run `make tools` (tools/build.sh {name})")
    return path


@pytest.fixture(scope="session", params=RELEASES, ids=[r.minor for r in RELEASES])
def argocd_release(request: pytest.FixtureRequest) -> ArgocdRelease:
    """Each Argo CD release tools/build.sh builds (tools/go/argocd/versions.txt): a test or fixture asking
    for it runs once per release, with that release's harnesses (``require_tool(release.tool(name))``)."""
    release: ArgocdRelease = request.param
    return release


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """Commands run in-process (CliRunner) configure the root logger; give each test a clean one."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO
