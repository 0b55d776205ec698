"""Write a deterministic layer tar: the same files give the same bytes, on any machine, at any time.

Names are sorted (byte order), every time is EPOCH, owners numeric (no user or group names), no
access or change times, no extended attributes. Each header is a plain ustar one, the long names split
into ustar's prefix and name fields, and a pax header is added only when a name or a link target does
not fit there (Go's archive/tar, which container engines use, does the same; GNU tar's posix format
adds a 1 KiB pax header to every name over 100 bytes). A file linked more than once is stored once and
then as hard links to its first name.
Usage: python3 tools/image/layer.py EPOCH DIR OUT.tar [PATH...]   (PATHs under DIR, default: all of it)
"""

from __future__ import annotations

import os
import stat
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

BLOCK = tarfile.BLOCKSIZE
CHUNK = 1 << 20


def walk(top: Path, path: str) -> Iterator[str]:
    """``path`` (relative to ``top``) and, for a directory that is no symlink, everything under it."""
    yield path
    full = top / path
    if full.is_dir() and not full.is_symlink():
        for dirpath, dirnames, filenames in os.walk(full):
            rel = os.path.relpath(dirpath, top)
            for name in dirnames + filenames:
                yield os.path.normpath(os.path.join(rel, name))


def names(top: Path, paths: list[str]) -> list[str]:
    found = {os.path.normpath(n) for p in paths or ["."] for n in walk(top, os.path.normpath(p))}
    found.discard(".")
    return sorted(found, key=os.fsencode)


def header(info: tarfile.TarInfo) -> bytes:
    try:
        return info.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape")
    except ValueError:  # a name or link target too long for ustar, even split
        return info.tobuf(tarfile.PAX_FORMAT, "utf-8", "surrogateescape")


def member(top: Path, name: str, epoch: int, seen: dict[tuple[int, int], str]) -> tarfile.TarInfo:
    st = os.lstat(top / name)
    info = tarfile.TarInfo(name)
    info.mode = stat.S_IMODE(st.st_mode)
    info.uid, info.gid, info.uname, info.gname = st.st_uid, st.st_gid, "", ""
    info.mtime = epoch
    if stat.S_ISDIR(st.st_mode):
        info.type = tarfile.DIRTYPE
    elif stat.S_ISLNK(st.st_mode):
        info.type, info.linkname = tarfile.SYMTYPE, os.readlink(top / name)
    elif stat.S_ISREG(st.st_mode):
        first = seen.setdefault((st.st_dev, st.st_ino), name) if st.st_nlink > 1 else name
        if first != name:
            info.type, info.linkname = tarfile.LNKTYPE, first
        else:
            info.size = st.st_size
    else:
        raise SystemExit(f"error: {top / name}: a device, socket or pipe has no place in a layer")
    return info


def write(epoch: int, top: Path, out: Path, paths: list[str]) -> None:
    seen: dict[tuple[int, int], str] = {}
    with out.open("wb") as tar:
        for name in names(top, paths):
            info = member(top, name, epoch, seen)
            tar.write(header(info))
            if info.type == tarfile.REGTYPE and info.size:
                with (top / name).open("rb") as src:
                    written = 0
                    while chunk := src.read(CHUNK):
                        tar.write(chunk)
                        written += len(chunk)
                if written != info.size:
                    raise SystemExit(f"error: {top / name} changed while it was being archived")
                tar.write(b"\0" * (-info.size % BLOCK))
        tar.write(b"\0" * (2 * BLOCK))  # the end-of-archive marker


def main(argv: list[str]) -> int:
    if len(argv) < 3 or not argv[0].isdigit():
        print("usage: layer.py EPOCH DIR OUT.tar [PATH...]", file=sys.stderr)
        return 2
    write(int(argv[0]), Path(argv[1]), Path(argv[2]), argv[3:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
