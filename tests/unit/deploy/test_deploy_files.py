"""deploy/ holds exactly what the generator makes from the one sidecar description."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.deploy.generate import REPO, files


@pytest.mark.parametrize(("path", "text"), sorted(files().items()), ids=lambda x: str(getattr(x, "name", "")))
def test_deploy_file_is_generated(path: Path, text: str) -> None:
    assert path.read_text(encoding="utf-8") == text, "run: python -m tests.unit.deploy.generate"


def test_nothing_else_is_in_deploy() -> None:
    on_disk = {p for p in (REPO / "deploy").rglob("*") if p.is_file() and p.suffix == ".yaml"}
    assert on_disk == set(files())
