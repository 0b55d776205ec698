"""Make identical files under DIR one: every copy becomes a relative symlink to the first (byte order).

kubernetes-validate ships the same JSON schema for many Kubernetes releases. A relative symlink to the
next folder is a 512-byte tar header; a hard link names its whole target path, which under the venv is
too long for ustar and costs a pax header as well. Only regular files of the same mode and owner merge.
Usage: python3 tools/image/dedupe.py DIR   (prints how many files and bytes it merged)
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from pathlib import Path

MIN_SIZE = 1  # empty files cost nothing but their header either way


def digest(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def dedupe(top: Path) -> tuple[int, int]:
    first: dict[tuple[int, int, int, int, str], Path] = {}
    merged = saved = 0
    found = (Path(d, n) for d, _, names in os.walk(top) for n in names)  # symlinks are not followed
    files = sorted((p for p in found if not p.is_symlink() and p.is_file()), key=os.fsencode)
    for path in files:
        st = path.lstat()
        if st.st_size < MIN_SIZE:
            continue
        key = (st.st_size, stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, digest(path))
        original = first.setdefault(key, path)
        if original == path:
            continue
        path.unlink()
        path.symlink_to(os.path.relpath(original, path.parent))
        os.lchown(path, st.st_uid, st.st_gid)
        merged += 1
        saved += st.st_size
    return merged, saved


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: dedupe.py DIR", file=sys.stderr)
        return 2
    merged, saved = dedupe(Path(argv[0]))
    print(f"{merged} identical files became symlinks ({saved / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
