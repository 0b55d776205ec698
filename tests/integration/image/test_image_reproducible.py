"""Two builds of one commit give the same image: a cold build (empty cache) against `make image`'s."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import datetime
from pathlib import Path

from tests.integration.image.rootfs import REPO, description


def test_a_cold_rebuild_gives_the_same_digest(tmp_path: Path) -> None:
    built = description()
    revision = built["config"]["Labels"]["org.opencontainers.image.revision"]
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    ).stdout
    assert revision == head.strip(), "build/image is from another commit: run `make image` again"
    epoch = int(datetime.fromisoformat(built["created"].replace("Z", "+00:00")).timestamp())
    env = {**os.environ, "SOURCE_DATE_EPOCH": str(epoch), "IMAGE_CACHE": str(tmp_path / "cache")}
    out = subprocess.run(
        [str(REPO / "tools" / "image" / "build.sh"), str(tmp_path / "out")],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    again = json.loads((tmp_path / "out" / "argocd-lifecycle.json").read_text())
    assert [layer["digest"] for layer in again["layers"]] == [layer["digest"] for layer in built["layers"]]
    assert again["digest"] == built["digest"]
