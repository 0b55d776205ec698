"""The image `make image` builds, run without a container runtime: its unpacked root file system and
its containers as tools/image/run.sh starts them (read-only root, an emptyDir on /tmp, uid/gid 999,
the command as pid 1), and the repo-server's CMP sidecar from it as Argo CD runs that sidecar."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .paths import REPO
from .procs import HarnessError, Process, Supervisor

ARCHIVE = REPO / "build" / "image" / "argocd-lifecycle.oci.tar"
TOOLS = REPO / "tools" / "image"
#: where Argo CD's repo-server init container copies its binary, as `argocd-cmp-server`
CMP_SERVER = "argocd-cmp-server"
#: source folder -> its folder in the installed argocd_lifecycle package (pyproject.toml's package-dir)
PACKAGES = {"core": ".", "plugin": "plugin", "generators": "generators", "notifications": "notifications"}


@dataclass(frozen=True)
class Mount:
    source: Path
    target: str
    writable: bool = False


def _pins() -> dict[str, str]:
    lines = (TOOLS / "versions.env").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line.strip() and not line.startswith("#"))


def unpacked() -> Path:
    """The image's layers unpacked (cached by digest by tools/image/unpack.sh)."""
    if not ARCHIVE.exists():
        raise HarnessError(f"{ARCHIVE} is missing: run `make image` (as root; tools/image/build.sh)")
    out = subprocess.run([str(TOOLS / "unpack.sh"), str(ARCHIVE)], capture_output=True, text=True, check=False)
    if out.returncode:
        raise HarnessError(f"tools/image/unpack.sh failed: {out.stderr.strip()}")
    return Path(out.stdout.strip())


def stale_file(root: Path, *, unchanged_since: float | None = None) -> str | None:
    """A source file of the working tree that the image holds otherwise (or, for a module, not at all);
    with ``unchanged_since``, only among the files not modified since that time."""
    pins = _pins()
    site = root / pins["VENV"].lstrip("/") / "lib" / pins["PYTHON"] / "site-packages" / "argocd_lifecycle"
    for folder, package in PACKAGES.items():
        for path in sorted((REPO / folder).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            if unchanged_since is not None and path.stat().st_mtime >= unchanged_since:
                continue
            installed = site / package / path.relative_to(REPO / folder)
            if installed.is_file() and installed.read_bytes() != path.read_bytes():
                return str(path.relative_to(REPO))
            if not installed.is_file() and path.suffix == ".py":
                return str(path.relative_to(REPO))
    return None


def root_filesystem() -> Path:
    """The image of the working tree, unpacked: `make image`'s, rebuilt first (a warm build, seconds)
    when the sources changed since, so that the tests never run code older than the tree's."""
    root = unpacked()
    changed = stale_file(root)
    if changed is None:
        return root
    started = time.time()
    build = subprocess.run([str(TOOLS / "build.sh")], capture_output=True, text=True, check=False, timeout=1200)
    if build.returncode:
        raise HarnessError(f"{changed} changed since `make image` and the rebuild failed: {build.stderr[-2000:]}")
    root = unpacked()
    # a file edited while the image built may differ; one that was not must be in it
    if (missing := stale_file(root, unchanged_since=started)) is not None:
        raise HarnessError(f"{missing} is not in the image built from it: is its package in pyproject.toml?")
    return root


def container_argv(
    root: Path,
    argv: Sequence[str],
    *,
    scratch: Path,
    mounts: Sequence[Mount] = (),
    env: Mapping[str, str] | None = None,
    workdir: str = "/tmp",
    net: bool = False,
) -> list[str]:
    """tools/image/run.sh's argv for ``argv`` in the image (``net``: a network namespace of its own,
    loopback only; without it the container shares this machine's loopback, as a pod's sidecars share
    the pod's)."""
    cmd = [str(TOOLS / "run.sh"), str(root), "--scratch", str(scratch), "--workdir", workdir]
    if net:
        cmd.append("--net")
    for mount in mounts:
        cmd += ["--mount", f"{mount.source}:{mount.target}" + (":rw" if mount.writable else "")]
    for name, value in (env or {}).items():
        cmd += ["--env", f"{name}={value}"]
    return [*cmd, "--", *argv]


def run(root: Path, argv: Sequence[str], *, scratch: Path, timeout: float = 60) -> str:
    """Run a short command in the image; its stdout, or a HarnessError with its stderr."""
    proc = subprocess.run(
        container_argv(root, argv, scratch=scratch), capture_output=True, text=True, timeout=timeout, check=False
    )
    if proc.returncode:
        raise HarnessError(f"`{' '.join(argv)}` failed in the image: {proc.stderr.strip()}")
    return proc.stdout


def _sidecar(root: Path, scratch: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The container and volumes `argocd-lifecycle plugin sidecar-values` (the image's own) gives Argo CD."""
    values = yaml.safe_load(run(root, ["argocd-lifecycle", "plugin", "sidecar-values"], scratch=scratch / "values"))
    (container,) = values["repoServer"]["extraContainers"]
    return container, {v["name"]: v for v in values["repoServer"]["volumes"]}


def start_sidecar(sup: Supervisor, argocd_binary: Path, state: Path, sockets: Path) -> Process:
    """The CMP sidecar from the image, as the repo-server's pod runs it: Argo CD's own binary copied into
    the shared `var-files` folder as argocd-cmp-server, the `plugins` socket folder shared with the
    repo-server, the image's `plugin config` mounted where the sidecar values mount the chart's ConfigMap,
    and the container's command, user and read-only root."""
    root = root_filesystem()
    scratch = state / "cmp-sidecar"
    var_files = scratch / "var-files"
    var_files.mkdir(parents=True, exist_ok=True)
    binary = var_files / CMP_SERVER
    if not binary.exists():
        try:  # a hard link is instant; Argo CD's init container copies
            os.link(argocd_binary.resolve(), binary)
        except OSError:
            shutil.copy2(argocd_binary, binary)
    sockets.chmod(0o777)  # an emptyDir: the sidecar (uid 999) creates its socket there
    container, volumes = _sidecar(root, scratch)
    plugin_yaml = scratch / "plugin.yaml"
    plugin_yaml.write_text(run(root, ["argocd-lifecycle", "plugin", "config"], scratch=scratch / "config"))
    mounts = []
    for mount in container["volumeMounts"]:
        volume = volumes.get(mount["name"], {})
        if mount["name"] == "var-files":  # the repo-server's volumes, not in the sidecar values
            mounts.append(Mount(var_files, mount["mountPath"]))
        elif mount["name"] == "plugins":
            mounts.append(Mount(sockets, mount["mountPath"], writable=True))
        elif "configMap" in volume:
            mounts.append(Mount(plugin_yaml, mount["mountPath"]))
        elif not ("emptyDir" in volume and mount["mountPath"] == "/tmp"):  # run.sh gives every container a /tmp
            raise HarnessError(f"the sidecar values mount {mount['name']} at {mount['mountPath']}: unknown here")
    argv = [*container["command"], *container.get("args", [])]
    return sup.start("cmp-server", container_argv(root, argv, scratch=scratch / "run", mounts=mounts))
