"""Cluster Secrets from disk (``--clusters-from FILE|DIR``), re-read when a file changes.

The same Secret manifests an operator would apply (YAML or JSON, several documents per file, ``data``
or ``stringData``), polled by size and mtime. A new, removed or renamed file changes its folder's
mtime and is seen within one poll (0.25 s); a file edited in place is seen by the full scan that runs
every ``full_every`` seconds (2 s). A file that stops parsing keeps its previous Secrets and is
reported. A file is read only up to ``MAX_FILE_BYTES`` and whatever reading one raises is that file's
problem: one file must not stop the polling (the inventory would stay as it was, and never listed).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from argocd_lifecycle.bugs import describe
from argocd_lifecycle.cluster_secrets import SecretWire
from argocd_lifecycle.errors import LifecycleError, UsageError
from argocd_lifecycle.generators.fleet.inventory import Inventory
from argocd_lifecycle.yaml import yamlio

log = logging.getLogger(__name__)

_SUFFIXES = {".yaml", ".yml", ".json"}
_Signature = tuple[int, int]
#: a thousand Secrets of a few KiB each fit many times over; a larger file is refused, not read
MAX_FILE_BYTES = 64 * yamlio.MIB
_LIMITS = replace(yamlio.DEFAULT_LIMITS, max_file_bytes=MAX_FILE_BYTES)


def _documents(path: Path) -> list[SecretWire]:
    docs: list[SecretWire] = []
    for doc in yamlio.load_all(yamlio.read_file(path, str(path), _LIMITS), _LIMITS):
        if isinstance(doc, dict) and doc.get("kind") == "List":
            items = doc.get("items") or []
            docs.extend(d for d in (items if isinstance(items, list) else []) if isinstance(d, dict))  # type: ignore[misc]
        elif isinstance(doc, dict) and doc.get("kind") == "Secret":
            docs.append(doc)  # type: ignore[arg-type]
    return docs


def _problem(path: Path, exc: BaseException) -> str:
    """One line naming the file, never a value it holds."""
    if isinstance(exc, LifecycleError):
        return exc.message  # names the path already
    if isinstance(exc, yaml.YAMLError):
        return yamlio.syntax_error(str(path), exc, context=False)
    if isinstance(exc, OSError):
        return f"{path}: cannot be read ({exc.strerror or type(exc).__name__})"
    return f"{path}: cannot be read ({describe(exc)})"


class FileSource:
    def __init__(self, root: Path, inventory: Inventory, *, poll: float = 0.25, full_every: float = 2.0) -> None:
        if not root.exists():
            raise UsageError(f"--clusters-from: {root} does not exist")
        self.root, self.inventory, self.poll = root, inventory, poll
        self._seen: dict[Path, _Signature] = {}
        self._docs: dict[Path, list[tuple[SecretWire, str]]] = {}
        self.problems: dict[Path, str] = {}
        self.full_every = full_every
        self._folder_marks: dict[str, int] = {}
        self._scanned_at = 0.0

    def _folders(self) -> dict[str, int]:
        """mtime of every folder under the root: a file added, removed or renamed changes one of them."""
        found: dict[str, int] = {}
        stack = [str(self.root)]
        while stack:
            folder = stack.pop()
            try:
                found[folder] = os.stat(folder).st_mtime_ns
                with os.scandir(folder) as entries:
                    stack.extend(e.path for e in entries if e.is_dir(follow_symlinks=False))
            except OSError:
                continue
        return found

    def _files(self) -> dict[Path, _Signature]:
        if self.root.is_file():
            candidates = [self.root]
        else:
            candidates = sorted(p for p in self.root.rglob("*") if p.suffix in _SUFFIXES and not p.name.startswith("."))
        found: dict[Path, _Signature] = {}
        for path in candidates:
            try:
                st = path.stat()
            except OSError:
                continue  # removed between listing and stat
            found[path] = (st.st_mtime_ns, st.st_size)
        return found

    def _due(self) -> bool:
        """A full scan is due when a folder changed, or every ``full_every`` seconds (in-place edits)."""
        if self.root.is_file():
            return True
        folders = self._folders()
        now = time.monotonic()
        if folders != self._folder_marks or now - self._scanned_at >= self.full_every:
            self._folder_marks, self._scanned_at = folders, now
            return True
        return False

    def _read(self, path: Path, sig: _Signature) -> None:
        try:
            docs = _documents(path)
        except Exception as exc:  # whatever one file does, the others are still read
            problem = _problem(path, exc)
            if self.problems.get(path) != problem:
                log.warning("cannot read cluster Secrets: %s", problem)
            self.problems[path] = problem
            return
        self.problems.pop(path, None)
        # files carry no resourceVersion: the file's own signature lets unchanged Secrets be skipped
        self._docs[path] = [(_versioned(doc, sig, i), f"{path}: Secret {_name(doc)}") for i, doc in enumerate(docs)]

    def collect(self) -> list[tuple[SecretWire, str]] | None:
        """Stat every file and re-read the changed ones (blocking); None when nothing changed."""
        if self._seen and not self._due():
            return None
        files = self._files()
        changed = [p for p, sig in files.items() if self._seen.get(p) != sig]
        gone = [p for p in self._seen if p not in files]
        if not changed and not gone and self._seen:
            return None
        for path in gone:
            self._docs.pop(path, None)
            self.problems.pop(path, None)
        for path in changed:
            self._read(path, files[path])
        self._seen = files
        return self._listing()

    def scan(self) -> bool:
        """One poll on the calling thread; True when the inventory got a fresh listing."""
        listing = self.collect()
        if listing is None and self.inventory.synced():
            return False
        self.inventory.replace_all(listing if listing is not None else self._listing())
        return True

    def _listing(self) -> list[tuple[SecretWire, str]]:
        return [item for path in sorted(self._docs) for item in self._docs[path]]

    async def run(self) -> None:
        while True:
            # on the loop thread: a thread would wait for the GIL at every stat while probes keep the
            # loop busy, and a folder check is only a few stat calls
            listing = self.collect()
            if listing is not None or not self.inventory.synced():
                self.inventory.replace_all(listing if listing is not None else self._listing())
            await asyncio.sleep(self.poll)


def _versioned(doc: SecretWire, sig: _Signature, index: int) -> SecretWire:
    meta = doc.get("metadata") or {}
    if meta.get("resourceVersion"):
        return doc
    return {**doc, "metadata": {**meta, "resourceVersion": f"file:{sig[0]}:{sig[1]}:{index}"}}


def _name(doc: Any) -> str:
    return str((doc.get("metadata") or {}).get("name") or "?")
