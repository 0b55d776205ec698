"""Cluster Secrets from disk (``--clusters-from FILE|DIR``), re-read when a file changes.

The same Secret manifests an operator would apply (YAML or JSON, several documents per file, ``data``
or ``stringData``). Files are polled by size and mtime (cheap: one ``stat`` per file), so a change is
seen within one poll period. A file that stops parsing keeps its previous Secrets and is reported.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import yaml

from argocd_lifecycle import yamlio
from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.inventory import Inventory
from argocd_lifecycle.generators.secrets import SecretWire

log = logging.getLogger(__name__)

_SUFFIXES = {".yaml", ".yml", ".json"}
_Signature = tuple[int, int]


def _documents(path: Path) -> list[SecretWire]:
    docs: list[SecretWire] = []
    for doc in yamlio.load_all(path.read_text(encoding="utf-8")):
        if isinstance(doc, dict) and doc.get("kind") == "List":
            docs.extend(d for d in doc.get("items") or [] if isinstance(d, dict))  # type: ignore[misc]
        elif isinstance(doc, dict) and doc.get("kind") == "Secret":
            docs.append(doc)  # type: ignore[arg-type]
    return docs


class FileSource:
    def __init__(self, root: Path, inventory: Inventory, *, poll: float = 0.25) -> None:
        if not root.exists():
            raise UsageError(f"--clusters-from: {root} does not exist")
        self.root, self.inventory, self.poll = root, inventory, poll
        self._seen: dict[Path, _Signature] = {}
        self._docs: dict[Path, list[tuple[SecretWire, str]]] = {}
        self.problems: dict[Path, str] = {}

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

    def _read(self, path: Path, sig: _Signature) -> None:
        try:
            docs = _documents(path)
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            problem = f"{path}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            if self.problems.get(path) != problem:
                log.warning("cannot read cluster Secrets: %s", problem)
            self.problems[path] = problem
            return
        self.problems.pop(path, None)
        # files carry no resourceVersion: the file's own signature lets unchanged Secrets be skipped
        self._docs[path] = [(_versioned(doc, sig, i), f"{path}: Secret {_name(doc)}") for i, doc in enumerate(docs)]

    def collect(self) -> list[tuple[SecretWire, str]] | None:
        """Stat every file and re-read the changed ones (blocking); None when nothing changed."""
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
            listing = await asyncio.to_thread(self.collect)  # disk work off the event loop
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
