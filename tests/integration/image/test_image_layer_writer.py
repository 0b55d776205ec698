"""The layer writer and the duplicate merger of the image build (tools/image/layer.py, dedupe.py):
the same files give the same bytes, headers are as small as ustar allows, and what GNU tar and umoci
read back is what was there."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
from pathlib import Path

from tests.integration.image.rootfs import REPO

TOOLS = REPO / "tools" / "image"
LONG = "opt/argocd-lifecycle/lib/python3.11/site-packages/kubernetes_validate/kubernetes-json-schema/v1.37.0-local"


def tree(top: Path) -> None:
    (top / LONG).mkdir(parents=True)
    (top / LONG / "deployment-apps-v1.json").write_text('{"a": 1}\n')
    (top / "b").mkdir()
    (top / "b" / "x").write_text("x")
    (top / "b" / "run").write_text("#!/bin/sh\n")
    (top / "b" / "run").chmod(0o755)
    os.link(top / "b" / "x", top / "b" / "x-again")
    (top / "b" / "to-x").symlink_to("x")
    (top / "a-b").write_text("sorts before a/ in byte order")


def layer(top: Path, out: Path, *paths: str, epoch: str = "1") -> bytes:
    subprocess.run([sys.executable, str(TOOLS / "layer.py"), epoch, str(top), str(out), *paths], check=True)
    return out.read_bytes()


def test_the_same_files_give_the_same_bytes(tmp_path: Path) -> None:
    tree(tmp_path / "one")
    tree(tmp_path / "two")
    (tmp_path / "two" / "b" / "x").touch()  # other times, other inodes: nothing of it reaches the tar
    os.utime(tmp_path / "two" / "a-b", (0, 10**9))
    first = layer(tmp_path / "one", tmp_path / "one.tar")
    assert first == layer(tmp_path / "two", tmp_path / "two.tar")
    assert first != layer(tmp_path / "one", tmp_path / "later.tar", epoch="2")


def test_sorted_names_fixed_times_numeric_owners_links_kept(tmp_path: Path) -> None:
    tree(tmp_path / "t")
    layer(tmp_path / "t", tmp_path / "l.tar")
    with tarfile.open(tmp_path / "l.tar") as tar:
        members = tar.getmembers()
        names = [m.name for m in members]
        assert names == sorted(names, key=os.fsencode) and "a-b" in names and names.index("a-b") < names.index("b")
        assert {m.mtime for m in members} == {1} and {(m.uname, m.gname) for m in members} == {("", "")}
        by_name = {m.name: m for m in members}
        assert by_name["b/x-again"].islnk() and by_name["b/x-again"].linkname == "b/x"
        assert by_name["b/to-x"].issym() and by_name["b/to-x"].linkname == "x"
        assert by_name["b/run"].mode == 0o755 and by_name["b"].isdir()
        assert tar.extractfile(f"{LONG}/deployment-apps-v1.json").read() == b'{"a": 1}\n'  # type: ignore[union-attr]
        # a 130-byte name fits ustar's prefix and name fields: no 1 KiB pax header for it
        assert not any(m.pax_headers for m in members)
    listed = subprocess.run(["tar", "-tvf", str(tmp_path / "l.tar")], capture_output=True, text=True, check=True)
    assert f"{LONG}/deployment-apps-v1.json" in listed.stdout


def test_only_the_paths_asked_for(tmp_path: Path) -> None:
    tree(tmp_path / "t")
    layer(tmp_path / "t", tmp_path / "l.tar", "./b/x", "b/run")
    with tarfile.open(tmp_path / "l.tar") as tar:
        assert tar.getnames() == ["b/run", "b/x"]


def test_a_link_target_too_long_for_ustar_gets_a_pax_header(tmp_path: Path) -> None:
    top = tmp_path / "t"
    tree(top)
    os.link(top / LONG / "deployment-apps-v1.json", top / "short")
    layer(top, tmp_path / "l.tar")
    with tarfile.open(tmp_path / "l.tar") as tar:
        (link,) = [m for m in tar.getmembers() if m.islnk() and len(m.linkname) > 100]
        assert link.pax_headers == {"linkpath": link.linkname}


def test_identical_files_become_relative_symlinks(tmp_path: Path) -> None:
    top = tmp_path / "site"
    for release in ("v1.36.0", "v1.37.0"):
        (top / release).mkdir(parents=True)
        (top / release / "pod.json").write_text('{"same": true}\n')
        (top / release / "own.json").write_text(release)
    (top / "v1.37.0" / "exec.json").write_text('{"same": true}\n')
    (top / "v1.37.0" / "exec.json").chmod(0o755)  # another mode: kept apart
    out = subprocess.run(
        [sys.executable, str(TOOLS / "dedupe.py"), str(top)], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("1 identical files became symlinks")
    copy = top / "v1.37.0" / "pod.json"
    assert copy.is_symlink() and os.readlink(copy) == "../v1.36.0/pod.json"
    assert copy.read_text() == '{"same": true}\n'
    assert not (top / "v1.37.0" / "exec.json").is_symlink() and not (top / "v1.37.0" / "own.json").is_symlink()
    digest = hashlib.sha256((top / "v1.36.0" / "pod.json").read_bytes()).hexdigest()
    assert digest == hashlib.sha256(copy.read_bytes()).hexdigest()
