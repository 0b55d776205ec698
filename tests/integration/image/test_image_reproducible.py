"""Two builds of one source give the same image: one from the layer cache, one cold (an empty cache).

The test builds both itself, from one snapshot of the sources, so neither a commit nor an edit made
after `make image` can make them differ; the cold build downloads and unpacks everything again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.integration.image.rootfs import REPO

#: the wheel's sources: pyproject.toml, README.md and the folders pyproject.toml maps its packages from
SOURCES = (
    "pyproject.toml",
    "README.md",
    *sorted(set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].values())),
)
EPOCH = "1700000000"
REVISION = "0123456789abcdef0123456789abcdef01234567"


def snapshot(dest: Path) -> Path:
    dest.mkdir()
    for name in SOURCES:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, dest / name)
    return dest


def build(out: Path, source: Path, **env: str) -> tuple[dict[str, Any], str]:
    proc = subprocess.run(
        [str(REPO / "tools" / "image" / "build.sh"), str(out)],
        env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH, "IMAGE_REVISION": REVISION, "IMAGE_SOURCE": str(source), **env},
        capture_output=True,
        text=True,
        timeout=1100,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads((out / "argocd-lifecycle.json").read_text()), proc.stderr


@pytest.mark.timeout(1200)
def test_a_cold_build_gives_the_digest_of_a_cached_one(tmp_path: Path) -> None:
    source = snapshot(tmp_path / "src")
    cached, _ = build(tmp_path / "cached", source)
    cold, log = build(tmp_path / "cold", source, IMAGE_CACHE=str(tmp_path / "cache"))
    assert "building the Debian root file system" in log and "installing requirements/image.txt" in log  # cold
    for one, other in zip(cached["layers"], cold["layers"], strict=True):
        assert one["digest"] == other["digest"], f"the layer {one['created_by']!r} differs"
    assert cold["digest"] == cached["digest"]
    assert cold["config"]["Labels"]["org.opencontainers.image.revision"] == REVISION
    assert cold["created"] == "2023-11-14T22:13:20Z"  # SOURCE_DATE_EPOCH
