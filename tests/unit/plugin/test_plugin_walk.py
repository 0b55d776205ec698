"""The one walk for manifest files (plugin/walk.py), and the order each of its two callers promises."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.render.files import app_files
from argocd_lifecycle.plugin.rewrite.files.sources import list_sources
from argocd_lifecycle.plugin.walk import check_symlinks, manifest_files
from tests.unit.plugin.helpers import write

FILES = {
    "a.yaml": "",
    "b.yml": "",
    "c.json": "",
    "t.yaml.j2": "",
    "notes.txt": "",
    "x.j2": "",
    ".hidden.yaml": "",
    ".git/config.yaml": "",
    "sub/d.yaml": "",
    "sub-e.yaml": "",
}


def names(root: Path, paths: list[Path]) -> set[str]:
    return {p.relative_to(root).as_posix() for p in paths}


def test_suffixes_templates_and_hidden_files(tmp_path: Path) -> None:
    root = write(tmp_path, FILES)
    plain = {"a.yaml", "b.yml", "c.json", "sub/d.yaml", "sub-e.yaml"}
    assert names(root, manifest_files(root)) == plain
    assert names(root, manifest_files(root, templates=True)) == plain | {"t.yaml.j2"}


def test_links_are_followed_only_when_asked(tmp_path: Path) -> None:
    root = write(tmp_path / "app", {"real/a.yaml": ""})
    os.symlink(root / "real", root / "alias")
    assert names(root, manifest_files(root)) == {"real/a.yaml"}
    assert names(root, manifest_files(root, follow_links=True)) == {"real/a.yaml", "alias/a.yaml"}


def test_each_caller_keeps_its_own_order(tmp_path: Path) -> None:
    root = write(tmp_path, FILES)
    # the plugin sorts by relative path as text ("sub-e" before "sub/"), scan and convert by path parts
    assert [p.relative_to(root).as_posix() for p in app_files(root)] == [
        "a.yaml",
        "b.yml",
        "c.json",
        "sub-e.yaml",
        "sub/d.yaml",
        "t.yaml.j2",
    ]
    assert [s.label for s in list_sources([str(root)])] == [
        f"{root.as_posix()}/{n}" for n in ("a.yaml", "b.yml", "c.json", "sub/d.yaml", "sub-e.yaml")
    ]


def test_a_symlink_loop_is_found_by_device_and_inode(tmp_path: Path) -> None:
    write(tmp_path, {"sub/a.yaml": ""})
    os.symlink("..", tmp_path / "sub" / "up")
    with pytest.raises(RenderError, match=r"^sub/up: refused: symlink loop \(it leads back to \.\)$"):
        manifest_files(tmp_path, follow_links=True)
    assert names(tmp_path, manifest_files(tmp_path)) == {"sub/a.yaml"}  # not followed: no loop


def test_links_that_fan_out_stop_at_the_budget(tmp_path: Path) -> None:
    for i in range(18):  # no loop, but 2^18 paths
        (tmp_path / f"n{i}").mkdir()
        for side in ("a", "b"):
            os.symlink(f"../n{i + 1}", tmp_path / f"n{i}" / side)
    (tmp_path / "n18").mkdir()
    with pytest.raises(RenderError, match="refused: the folder holds more than 10,000 folders"):
        manifest_files(tmp_path, follow_links=True)


def test_check_symlinks_refuses_links_out_of_the_folder(tmp_path: Path) -> None:
    write(tmp_path, {"app/a.yaml": "", "outside.yaml": ""})
    os.symlink(tmp_path / "outside.yaml", tmp_path / "app" / "in.yaml")
    with pytest.raises(RenderError, match=r"^in\.yaml: refused: symlink points outside the application folder$"):
        check_symlinks(tmp_path / "app")
