"""Atomic writes: the old file or the new one, never half of either, and no temporary files left behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from argocd_lifecycle.files import write_atomically


def test_writes_a_new_file(tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    write_atomically(target, "a: 1\n")
    assert target.read_text() == "a: 1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.yaml"]


def test_replacing_keeps_the_mode_of_the_file_replaced(tmp_path: Path) -> None:
    target = tmp_path / "secret.yaml"
    target.write_text("old")
    target.chmod(0o600)
    write_atomically(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_an_explicit_mode_wins(tmp_path: Path) -> None:
    target = tmp_path / "tool"
    write_atomically(target, "#!/bin/sh\n", mode=0o750)
    assert stat.S_IMODE(target.stat().st_mode) == 0o750


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    target.write_text("old")
    with pytest.raises(TypeError):
        write_atomically(target, 42)  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.yaml"]


def test_a_missing_folder_is_an_oserror_for_the_caller_to_name(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomically(tmp_path / "nowhere" / "out.yaml", "x")


def test_a_relative_path_in_the_working_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_atomically(Path("here.txt"), "x")
    assert (tmp_path / "here.txt").read_text() == "x"
    assert os.listdir(tmp_path) == ["here.txt"]
