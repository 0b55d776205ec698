"""Kubernetes lists, read whole: paged from the API, or from ``kubectl get ... -o json`` files.

A file holds one object or a List (``List``, ``ApplicationList``, ``SecretList``, ...); the API server
leaves ``kind``/``apiVersion`` off the items of a typed list, kubectl adds them, and both are accepted.
Files are untrusted input: bounded in size, UTF-8 JSON only, every problem one message naming the file
(and the item).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.kube.client import Kube

PAGE = 500
#: a support bundle's `kubectl get applications -o json` of a few thousand Applications fits easily
MAX_FILE_BYTES = 256 * 1024 * 1024


class ListFileError(LifecycleError):
    """A file that is not a readable ``kubectl -o json`` document; the message names it."""


def pages(kube: Kube, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Iterator[Mapping[str, Any]]:
    """Every item of a list call, ``PAGE`` at a time (``limit``/``continue``)."""
    token = None
    while True:
        page = kube.call(what, fn, *args, limit=PAGE, _continue=token, **kwargs)
        items = page.get("items") or []
        if not isinstance(items, list):
            raise ListFileError(f"{what}: the API answered a list without items")
        yield from (item for item in items if isinstance(item, Mapping))
        token = (page.get("metadata") or {}).get("continue")
        if not token:
            return


def load_document(path: Path, *, max_bytes: int = MAX_FILE_BYTES) -> Mapping[str, Any]:
    """One JSON object from ``path``."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise ListFileError(f"{path}: {size} bytes, more than the {max_bytes} this reads")
        raw = path.read_bytes()
    except OSError as exc:
        raise ListFileError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        doc = json.loads(raw)
    except UnicodeDecodeError as exc:
        raise ListFileError(f"{path}: not UTF-8 text") from exc
    except json.JSONDecodeError as exc:
        raise ListFileError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    except RecursionError as exc:
        raise ListFileError(f"{path}: JSON nested too deeply") from exc
    if not isinstance(doc, dict):
        raise ListFileError(f"{path}: expected a JSON object (kubectl get ... -o json), got {type(doc).__name__}")
    return doc


def items(doc: Mapping[str, Any], where: str) -> Iterator[tuple[Mapping[str, Any], str]]:
    """``(object, where)`` for a single object, or for each item of a List (kind filled in from it)."""
    kind = doc.get("kind")
    if "items" not in doc:
        yield doc, where
        return
    listed = doc["items"]
    if listed is None:
        return
    if not isinstance(listed, list):
        raise ListFileError(f"{where}: items should be a list")
    item_kind = kind[: -len("List")] if isinstance(kind, str) and kind.endswith("List") and kind != "List" else ""
    for index, raw in enumerate(listed):
        at = f"{where}: item {index}"
        if not isinstance(raw, dict):
            raise ListFileError(f"{at}: not an object")
        if item_kind and "kind" not in raw:
            raw = {**raw, "kind": item_kind, "apiVersion": doc.get("apiVersion", "")}  # noqa: PLW2901
        yield raw, at
