"""`make release`: the version comes from one place, and the SBOM lists the image's Debian and Python
packages as the archive holds them (a small archive shaped like `make image`'s)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.deploy.generate import REPO
from tests.unit.deploy.oci import DISTS, write_archive

RELEASE = REPO / "deploy" / "release" / "release.sh"
SBOM = REPO / "deploy" / "release" / "sbom.py"


def sbom(archive: Path) -> tuple[str, dict[str, object]]:
    proc = subprocess.run([sys.executable, str(SBOM), str(archive)], capture_output=True, text=True, check=True)
    return proc.stdout, json.loads(proc.stdout)


def test_the_sbom_lists_installed_debian_packages_and_python_distributions(tmp_path: Path) -> None:
    digest = write_archive(tmp_path / "image.oci.tar")
    text, doc = sbom(tmp_path / "image.oci.tar")
    assert doc["spdxVersion"] == "SPDX-2.3"
    (image,) = [p for p in doc["packages"] if p["SPDXID"] == "SPDXRef-image"]  # type: ignore[attr-defined]
    assert image["checksums"] == [{"algorithm": "SHA256", "checksumValue": digest.removeprefix("sha256:")}]
    purls = sorted(r["referenceLocator"] for p in doc["packages"] for r in p.get("externalRefs", []))  # type: ignore[attr-defined]
    assert purls == sorted(
        [
            "pkg:deb/debian/libc6@2.36-9+deb12u14?arch=amd64",
            "pkg:deb/debian/python3.11-minimal@3.11.2-6+deb12u6?arch=amd64",
            *(f"pkg:pypi/{n.lower()}@{v}" for n, v in DISTS.items()),
        ]
    )  # a package dpkg removed is not in the image
    contained = {r["relatedSpdxElement"] for r in doc["relationships"] if r["relationshipType"] == "CONTAINS"}  # type: ignore[attr-defined]
    assert contained == {p["SPDXID"] for p in doc["packages"]} - {image["SPDXID"]}  # type: ignore[attr-defined]
    assert sbom(tmp_path / "image.oci.tar")[0] == text  # the same image, the same SBOM


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--check", "9.9.9"], "VERSION=9.9.9, but pyproject.toml (where versions come from) says 0.1.0"),
        (["--check", ""], "VERSION is required: make release VERSION=x.y.z"),
    ],
)
def test_a_release_of_another_version_is_refused(argv: list[str], message: str) -> None:
    proc = subprocess.run([str(RELEASE), *argv], capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == f"error: {message}" + (": change it there first\n" if "9.9.9" in message else "\n")


def test_the_package_version_is_accepted() -> None:
    assert subprocess.run([str(RELEASE), "--check", "0.1.0"], capture_output=True, check=False).returncode == 0
