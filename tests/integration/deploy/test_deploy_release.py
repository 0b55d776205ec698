"""`make release` and its OCI round trip: the release script's artifacts (chart package, image archive,
SBOM, checksums), the image and the chart pushed to a real OCI registry on loopback (go-containerregistry's
registry, from `make tools`), the chart pulled back by its oci:// reference and rendered with the digest
the image was released with."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.conftest import require_tool
from tests.integration.chart.chartkit import tool
from tests.unit.deploy.generate import REPO
from tests.unit.deploy.oci import write_archive

pytestmark = pytest.mark.upstream

RELEASE = REPO / "deploy" / "release" / "release.sh"
VERSION = yaml.safe_load((REPO / "charts" / "argocd-lifecycle" / "Chart.yaml").read_text())["version"]
IMAGE = REPO / "build" / "image" / f"argocd-lifecycle-{VERSION}.oci.tar"


def release(out: Path, archive: Path | None = None) -> str:
    env = {**os.environ, "PATH": f"{Path(tool('helm')).parent}{os.pathsep}{os.environ['PATH']}"}
    if archive is not None:
        env["IMAGE_ARCHIVE"] = str(archive)
    proc = subprocess.run(
        [str(RELEASE), VERSION, str(out)], capture_output=True, text=True, env=env, check=False, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def helm(*args: str, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run([tool("helm"), *args], capture_output=True, text=True, env=env, check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def released_digest(archive: Path) -> str:
    with tarfile.open(archive) as tar:
        index = tar.extractfile("index.json")
        assert index is not None
        return str(json.loads(index.read())["manifests"][0]["digest"])


def test_the_release_has_every_artifact_and_its_checksum(tmp_path: Path) -> None:
    digest = write_archive(tmp_path / "image.oci.tar", VERSION)
    out = tmp_path / "release"
    printed = release(out, tmp_path / "image.oci.tar")
    assert f"argocd-lifecycle {VERSION}: image {digest}" in printed
    names = {f"argocd-lifecycle-{VERSION}.{ext}" for ext in ("tgz", "oci.tar", "spdx.json")}
    assert {p.name for p in out.iterdir()} == {*names, "SHA256SUMS"}
    sums = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=out, capture_output=True, text=True, check=False)
    assert sums.returncode == 0 and sums.stdout.count(": OK") == 3
    chart = helm("show", "chart", str(out / f"argocd-lifecycle-{VERSION}.tgz"))
    assert yaml.safe_load(chart)["appVersion"] == VERSION
    assert json.loads((out / f"argocd-lifecycle-{VERSION}.spdx.json").read_text())["packages"][0]["checksums"][0][
        "checksumValue"
    ] == digest.removeprefix("sha256:")


@pytest.fixture(scope="module")
def registry() -> Iterator[str]:
    """go-containerregistry's in-memory registry on a free loopback port."""
    proc = subprocess.Popen(
        [str(require_tool("registry")), "-port", "0"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        match = re.search(r"serving on port (\d+)", line)
        assert match, f"the registry did not start: {line}"
        yield f"127.0.0.1:{match.group(1)}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def push_image(archive: Path, registry: str, repository: str, tag: str) -> str:
    """Push an OCI archive's image with the distribution API (blobs, then the manifest); its digest."""
    with tarfile.open(archive) as tar, httpx.Client(base_url=f"http://{registry}", timeout=60) as http:

        def blob(digest: str) -> bytes:
            member = tar.extractfile(f"blobs/{digest.replace(':', '/', 1)}")
            assert member is not None
            return member.read()

        index = json.loads(tar.extractfile("index.json").read())  # type: ignore[union-attr]
        entry = index["manifests"][0]
        manifest_bytes = blob(entry["digest"])
        manifest: dict[str, Any] = json.loads(manifest_bytes)
        for ref in (manifest["config"], *manifest["layers"]):
            start = http.post(f"/v2/{repository}/blobs/uploads/")
            assert start.status_code == 202, start.text
            location = start.headers["location"]
            done = http.put(location, params={"digest": ref["digest"]}, content=blob(ref["digest"]))
            assert done.status_code == 201, done.text
        put = http.put(
            f"/v2/{repository}/manifests/{tag}", content=manifest_bytes, headers={"Content-Type": entry["mediaType"]}
        )
        assert put.status_code == 201, put.text
        return str(put.headers["docker-content-digest"])


def test_the_oci_round_trip(tmp_path: Path, registry: str) -> None:
    if not IMAGE.exists():
        pytest.fail(f"{IMAGE} is missing: run `make image`", pytrace=False)
    out = tmp_path / "release"
    release(out)
    archive = out / f"argocd-lifecycle-{VERSION}.oci.tar"
    released = released_digest(archive)
    # the image: the registry names it by the digest it was released with
    assert push_image(archive, registry, "team/argocd-lifecycle", VERSION) == released
    # the chart: pushed, pulled back by its oci:// reference, byte for byte
    package = out / f"argocd-lifecycle-{VERSION}.tgz"
    env = {**os.environ, "HELM_REGISTRY_CONFIG": str(tmp_path / "registry.json"), "HELM_CACHE_HOME": str(tmp_path)}
    helm("push", str(package), f"oci://{registry}/charts", "--plain-http", env=env)
    pulled = tmp_path / "pulled"
    pulled.mkdir()
    reference = f"oci://{registry}/charts/argocd-lifecycle"
    helm("pull", reference, "--version", VERSION, "--plain-http", "-d", str(pulled), env=env)
    (chart,) = pulled.iterdir()
    assert hashlib.sha256(chart.read_bytes()).digest() == hashlib.sha256(package.read_bytes()).digest()
    # rendered with the released digest: every pod runs exactly the image in the registry
    repository = f"{registry}/team/argocd-lifecycle"
    rendered = helm(
        "template", "argocd-lifecycle", str(chart), "--namespace", "argocd",
        "--set", f"global.image.repository={repository}", "--set", f"global.image.digest={released}",
    )  # fmt: skip
    docs = [d for d in yaml.safe_load_all(rendered) if d]
    images = {
        c["image"]
        for d in docs
        if d["kind"] in ("Deployment", "Job")
        for c in [
            *d["spec"]["template"]["spec"].get("initContainers", []),
            *d["spec"]["template"]["spec"]["containers"],
        ]
    }
    assert images == {f"{repository}@{released}"}
    with httpx.Client(base_url=f"http://{registry}") as http:
        got = http.get(
            f"/v2/team/argocd-lifecycle/manifests/{released}",
            headers={"Accept": "application/vnd.oci.image.manifest.v1+json"},
        )
    assert got.status_code == 200 and "sha256:" + hashlib.sha256(got.content).hexdigest() == released


def test_the_sbom_of_the_real_image_lists_its_locks(tmp_path: Path) -> None:
    if not IMAGE.exists():
        pytest.fail(f"{IMAGE} is missing: run `make image`", pytrace=False)
    out = tmp_path / "release"
    release(out)
    doc = json.loads((out / f"argocd-lifecycle-{VERSION}.spdx.json").read_text())
    listed = {(p["name"], p["versionInfo"]) for p in doc["packages"]}
    debian = re.findall(r"^(\S+) (\S+) [0-9a-f]{64}$", (REPO / "tools" / "image" / "debian.lock").read_text(), re.M)
    assert set(debian) <= listed
    python = re.findall(r"^([A-Za-z0-9_.-]+)==([^ \\]+)", (REPO / "requirements" / "image.txt").read_text(), re.M)
    normal = {(re.sub(r"[-_.]+", "-", n).lower(), v) for n, v in listed}
    assert {(re.sub(r"[-_.]+", "-", n).lower(), v) for n, v in python} <= normal
    assert ("argocd-lifecycle", VERSION) in normal
