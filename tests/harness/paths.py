"""Where the harness finds the repository, the built upstream tools and Argo CD's own manifests."""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

from tests.argocd_versions import E2E_ENV, NEWEST, ArgocdRelease, UnknownRelease, select

from .procs import HarnessError

REPO = Path(__file__).resolve().parents[2]


def _artifacts() -> Path:
    """The newest release's logs and timings in test-artifacts/e2e, another's in e2e-<minor>."""
    try:
        release = select(os.environ.get(E2E_ENV))
    except UnknownRelease:
        release = NEWEST  # the platform then fails naming the variable (argocd_release)
    return REPO / "test-artifacts" / ("e2e" if release is NEWEST else f"e2e-{release.minor}")


ARTIFACTS = _artifacts()
VENV_BIN = REPO / ".venv" / "bin"
ARGOCD_MODULE = "github.com/argoproj/argo-cd/v3"


@cache
def tools_bin() -> Path:
    out = subprocess.run([str(REPO / "tools" / "build.sh"), "--path"], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def tool(name: str) -> Path:
    """A pinned upstream binary built by tools/build.sh; a clear failure when it was not built."""
    path = tools_bin() / name
    if not os.access(path, os.X_OK):
        build_name = name.replace("-", "_")
        raise HarnessError(f"{name} is not built ({path} missing): run `make tools` or `tools/build.sh {build_name}`")
    return path


@cache
def argocd_release() -> ArgocdRelease:
    """The Argo CD release the platform runs: the newest built unless ARGOCD_LIFECYCLE_E2E_ARGOCD names
    another minor (or release) of tools/go/argocd/versions.txt."""
    try:
        return select(os.environ.get(E2E_ENV))
    except UnknownRelease as exc:
        raise HarnessError(str(exc)) from None


def argocd() -> Path:
    """That release's argocd binary (tools/build.sh links each as argocd-<minor>)."""
    release = argocd_release()
    path = tools_bin() / release.tool("argocd")
    if not os.access(path, os.X_OK):
        build = f"tools/build.sh {release.tool('argocd')}"
        raise HarnessError(f"Argo CD {release.release} is not built ({path} missing): run `{build}`")
    return path


def system_binary(name: str, package: str) -> Path:
    found = shutil.which(name)
    if not found:
        raise HarnessError(f"{name} not found on PATH: install the Debian package {package} (make system)")
    return Path(found)


def our_cli() -> Path:
    path = VENV_BIN / "argocd-lifecycle"
    if not os.access(path, os.X_OK):
        raise HarnessError(f"{path} missing: run `make install`")
    return path


@cache
def argocd_source() -> Path:
    """The platform's Argo CD module folder in the Go module cache (manifests/crds, manifests/base): read,
    never copied."""
    release = argocd_release()
    moddir = release.go_mod.parent
    env = {**os.environ, "GOTOOLCHAIN": release.toolchain}
    try:  # read-only: never touches the consumer module's go.mod/go.sum
        out = subprocess.run(
            ["go", "list", "-m", "-mod=readonly", "-f", "{{.Dir}}", ARGOCD_MODULE],
            cwd=moddir, env=env, check=True, capture_output=True, text=True,
        )  # fmt: skip
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        raise HarnessError(f"cannot locate {ARGOCD_MODULE} in the Go module cache: {detail.strip()}") from exc
    path = Path(out.stdout.strip())
    if not out.stdout.strip() or not (path / "manifests" / "crds").is_dir():
        build = f"tools/build.sh {release.tool('argocd')}"
        raise HarnessError(f"{ARGOCD_MODULE} {release.release} is not in the Go module cache: run `{build}`")
    return path
