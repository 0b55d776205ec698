"""What is in the image built by `make image`: size, user, entrypoint, pinned tools, nothing else."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from tests.integration.image.rootfs import ARCHIVE, REPO, description, run, unpacked

PINS = dict(
    line.split("=", 1)
    for line in (REPO / "tools" / "image" / "versions.env").read_text().splitlines()
    if line.strip() and not line.startswith("#")
)


@pytest.fixture(scope="module")
def root() -> Path:
    return unpacked()


def test_under_320_mb_uncompressed() -> None:
    # 282 MB before argocd-k8s-auth (17.9 MB, stripped) joined helm and kustomize in the tools layer
    info = description()
    assert info["size"] < 320_000_000, f"{info['size'] / 1e6:.1f} MB"
    assert info["size"] == sum(layer["size"] for layer in info["layers"])


def test_config_user_entrypoint_and_environment() -> None:
    config = description()["config"]
    assert config["User"] == "999:999"
    assert config["Entrypoint"] == ["argocd-lifecycle"]
    assert config["WorkingDir"] == "/tmp"
    env = (REPO / "tools" / "image" / "image.env").read_text().split()
    assert config["Env"] == env


def test_registries_and_podman_read_the_archive() -> None:
    out = subprocess.run(["skopeo", "inspect", f"oci-archive:{ARCHIVE}"], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    inspected = json.loads(out.stdout)
    assert inspected["Digest"] == description()["digest"]
    assert inspected["Architecture"] == "amd64" and inspected["Os"] == "linux"


@pytest.mark.parametrize(
    ("tool", "folder"),
    [
        ("helm", "usr/local/bin"),
        ("kustomize", "usr/local/bin"),
        ("argocd-k8s-auth", "usr/local/libexec/argocd-lifecycle"),
    ],
)
def test_the_pinned_tool_builds(root: Path, tool: str, folder: str) -> None:
    binary = root / folder / tool
    assert hashlib.sha256(binary.read_bytes()).hexdigest() == PINS[f"{tool.upper().replace('-', '_')}_SHA256"]
    assert binary.stat().st_mode & 0o777 == 0o755


def test_nothing_the_runtime_does_not_need(root: Path) -> None:
    for compiler in ("gcc", "cc", "g++", "make", "ld", "strip", "pip", "pip3", "apt-get", "sh", "bash"):
        for folder in ("usr/bin", "usr/local/bin", "opt/argocd-lifecycle/bin"):
            assert not (root / folder / compiler).exists(), f"/{folder}/{compiler}"
    site = root / "opt" / "argocd-lifecycle" / "lib" / "python3.11" / "site-packages"
    assert not list(site.glob("pip*")) and not list(site.glob("setuptools*"))
    tests = [p for p in root.rglob("*") if p.is_dir() and p.name in {"tests", "test"} and "/proc/" not in str(p)]
    assert tests == []
    assert not (root / "root" / ".cache").exists() and not any((root / "tmp").iterdir())
    assert not (site / "kubernetes" / "aio").exists()


def test_our_code_never_imports_the_left_out_asyncio_client() -> None:
    for folder in ("app", "core", "plugin", "generators", "notifications"):
        for path in (REPO / folder).rglob("*.py"):
            assert "kubernetes.aio" not in path.read_text() and "kubernetes import aio" not in path.read_text(), path


# Run by the image's own interpreter: markers such as `python_full_version < "3.11.3"` are evaluated
# for Debian's 3.11.2, which the lock must have been resolved with (tools/image/lock.sh).
REQUIREMENTS_MET = """
import importlib.metadata as md
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
installed = {canonicalize_name(d.metadata["Name"]): d.version for d in md.distributions()}
for dist in md.distributions():
    for text in dist.requires or []:
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        have = installed.get(canonicalize_name(req.name))
        if have is None or not req.specifier.contains(have, prereleases=True):
            print(f"{dist.metadata['Name']} needs {req}, has {have}")
"""


def test_every_installed_distribution_has_what_it_requires(root: Path, tmp_path: Path) -> None:
    out = run(root, ["python3.11", "-c", REQUIREMENTS_MET], scratch=tmp_path / "run")
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""


def test_user_999_and_a_read_only_root(root: Path, tmp_path: Path) -> None:
    probe = (
        "import os, pwd; print(os.getuid(), os.getgid(), pwd.getpwuid(os.getuid()).pw_name); "
        "open('/tmp/ok', 'w').write('x')\n"
        "try:\n open('/opt/x', 'w')\nexcept OSError as e:\n print(e.errno)"
    )
    out = run(root, ["python3.11", "-c", probe], scratch=tmp_path / "run")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["999", "999", "argocd", "30"]  # 30: EROFS


def test_what_a_render_imports_is_loaded_from_bytecode(root: Path, tmp_path: Path) -> None:
    # the root is read-only: a stale or missing pyc is compiled from source again on every render
    imports = "import argocd_lifecycle.app.entry, argocd_lifecycle.plugin.generate"
    out = run(root, ["python3.11", "-v", "-c", imports], scratch=tmp_path / "run")
    assert out.returncode == 0, out.stderr
    from_source = [line for line in out.stderr.splitlines() if line.startswith("# code object from /")]
    assert from_source == []


def test_entrypoint_answers(root: Path, tmp_path: Path) -> None:
    out = run(root, ["argocd-lifecycle", "--version"], scratch=tmp_path / "run")
    assert out.returncode == 0, out.stderr
    version = description()["config"]["Labels"]["org.opencontainers.image.version"]
    assert out.stdout.strip() == f"argocd-lifecycle, version {version}"
    # Go (helm, kustomize) and OpenSSL find the CA bundle (certifi's) where they look
    check = (
        "import os, ssl; print(os.path.getsize(os.environ['SSL_CERT_FILE']) > 100000, "
        "ssl.create_default_context().cert_store_stats()['x509_ca'] > 100)"
    )
    out = run(root, ["python3.11", "-c", check], scratch=tmp_path / "certs")
    assert out.stdout.split() == ["True", "True"], out.stderr


# The generator in the image runs a cluster Secret's awsAuthConfig as Argo CD does, with the helper the
# image ships and no other setup: the default allowed list and plugin folder find it. Presigning the STS
# request is local (no role to assume), so this runs without any network.
AWS_EXEC = """
import asyncio, json
from argocd_lifecycle.cluster_secrets import exec_plugin
from argocd_lifecycle.generators.fleet.exec_credentials import ExecCredentials, ExecSettings
plugin = exec_plugin({"awsAuthConfig": {"clusterName": "prod-eu-1"}}, "cluster secret prod")
settings = ExecSettings()
issued = asyncio.run(ExecCredentials(plugin, settings).get())
print(json.dumps([settings.resolve(plugin.command), issued.token.split(".")[0], issued.expires is not None]))
"""


def test_aws_auth_config_runs_the_shipped_argocd_k8s_auth(root: Path, tmp_path: Path) -> None:
    env = {
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
        "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/EXAMPLEKEY",
        "AWS_REGION": "eu-west-1",
    }
    out = run(root, ["python3.11", "-c", AWS_EXEC], scratch=tmp_path / "run", env=env, net=True)  # loopback only
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == ["/usr/local/libexec/argocd-lifecycle/argocd-k8s-auth", "k8s-aws-v1", True]
