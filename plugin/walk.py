"""Files below a folder: the one walk that the plugin's renderers, ``plugin parameters`` and scan/convert
share, with the repository treated as hostile: symlinks may not lead out of the folder, a symlink loop is
found by the (device, inode) of the folders on the way down, and the walk has a size budget (links that
fan out without looping would otherwise multiply the paths)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from argocd_lifecycle.errors import RenderError

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
TEMPLATE_SUFFIX = ".j2"
#: files and folders, and folders alone, that one walk following links may visit
MAX_ENTRIES = 100_000
MAX_FOLDERS = 10_000

_Key = tuple[int, int]


def refuse_outside(path: Path, root: Path, rel: str) -> None:
    """Refuse ``path`` when it resolves outside ``root`` (a resolved folder)."""
    if not path.resolve().is_relative_to(root):
        raise RenderError(f"{rel}: refused: symlink points outside the application folder")


def _key(path: str, follow: bool = True) -> _Key:
    st = os.stat(path, follow_symlinks=follow)
    return (st.st_dev, st.st_ino)


def walk(
    root: Path, *, follow_links: bool = False, links: list[str] | None = None
) -> Iterator[tuple[str, list[str], list[str]]]:
    """Like ``os.walk`` (top-down, ``(dirpath, dirnames, filenames)``; the caller may prune
    ``dirnames``), but a linked folder that is its own ancestor is a RenderError, as is a walk that
    follows links past ``MAX_ENTRIES``. Links to folders are followed only with ``follow_links``.
    ``links`` collects the paths of the symlinks seen (the listing knows them: no extra system call)."""
    top = str(root)
    stack: list[tuple[str, dict[_Key, str]]] = [(top, {_key(top): "."})]
    seen = folders = 0
    while stack:
        dirpath, ancestors = stack.pop()
        folders += 1
        if follow_links and folders > MAX_FOLDERS:
            raise RenderError(f"refused: the folder holds more than {MAX_FOLDERS:,} folders (links included)")
        try:
            entries = sorted(os.scandir(dirpath), key=lambda e: e.name)
        except OSError as exc:
            raise RenderError(f"{os.path.relpath(dirpath, top)}: cannot be listed ({exc.strerror})") from exc
        seen += len(entries)
        if follow_links and seen > MAX_ENTRIES:  # without links there is nothing to multiply
            raise RenderError(f"refused: the folder holds more than {MAX_ENTRIES:,} files and folders (links included)")
        dirnames: list[str] = []
        filenames: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=follow_links)
            except OSError:
                is_dir = False
            (dirnames if is_dir else filenames).append(entry.name)
            if links is not None and entry.is_symlink():
                links.append(entry.path)
        yield dirpath, dirnames, filenames
        children = []
        for name in dirnames:
            path = os.path.join(dirpath, name)
            try:
                key = _key(path)
            except OSError:
                continue
            if key in ancestors:
                rel = os.path.relpath(path, top)
                raise RenderError(f"{rel}: refused: symlink loop (it leads back to {ancestors[key]})")
            children.append((path, {**ancestors, key: os.path.relpath(path, top)}))
        stack.extend(reversed(children))


def check_symlinks(root: Path) -> None:
    """Refuse any symlink under ``root`` that leads out of it (the repo is untrusted input)."""
    links: list[str] = []
    for _ in walk(root, links=links):
        pass
    for link in links:
        path = Path(link)
        refuse_outside(path, root, path.relative_to(root).as_posix())


def manifest_files(root: Path, *, templates: bool = False, follow_links: bool = False) -> list[Path]:
    """Files below ``root`` named ``*.yaml``, ``*.yml`` or ``*.json`` (also with ``.j2`` appended when
    ``templates``); hidden files and folders are skipped. In no particular order: each caller sorts
    the way its output promises."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in walk(root, follow_links=follow_links):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            stem = name.removesuffix(TEMPLATE_SUFFIX) if templates else name
            if not name.startswith(".") and stem.endswith(MANIFEST_SUFFIXES):
                found.append(Path(dirpath, name))
    return found
