"""The offline source: ``kubectl get application APP -o json`` and ``kubectl get ... -o json`` of its
objects, read by ``argocd_lifecycle.kube.lists`` (bounded, one message per problem).

A Secret in the files is cut to its metadata as it is read (what the live reader asks the API server
for), so nothing past its metadata is ever looked at.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from argocd_lifecycle.drift.attribute import ObjectRef
from argocd_lifecycle.drift.report import MAX_OBJECT_BYTES, AppDrift, DriftInputError, read_app
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.kube.lists import items, load_document

Read = Mapping[str, Any] | str


class DriftError(LifecycleError):
    """Bad input or an unreachable cluster: exit 1 (2 is "drift attributed")."""


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def application(paths: Sequence[Path], name: str, namespace: str) -> AppDrift:
    """Application ``namespace/name`` from the files (a namespace-less object matches any namespace)."""
    seen: list[str] = []
    for path in paths:
        for item, where in items(load_document(path), str(path)):
            if item.get("kind") != "Application":
                continue
            meta = item.get("metadata")
            meta = meta if isinstance(meta, Mapping) else {}
            seen.append(f"{_str(meta.get('namespace'))}/{_str(meta.get('name'))}")
            if _str(meta.get("name")) == name and _str(meta.get("namespace")) in ("", namespace):
                try:
                    return read_app(item)
                except DriftInputError as exc:
                    raise DriftError(f"{where}: {exc}") from exc
    hint = f" (the files hold {', '.join(sorted(seen)[:20])})" if seen else " (the files hold no Application)"
    raise DriftError(f"application {name!r} not found in namespace {namespace!r}{hint}")


def _ref(item: Mapping[str, Any]) -> ObjectRef:
    api = _str(item.get("apiVersion"))
    group, _, version = api.rpartition("/")
    meta = item.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    return ObjectRef(group, _str(item.get("kind")), _str(meta.get("namespace")), _str(meta.get("name")), version)


def _kept(item: Mapping[str, Any], ref: ObjectRef) -> Read:
    if ref.is_secret:  # its metadata only, as the live reader asks for it
        return {"apiVersion": "v1", "kind": "Secret", "metadata": item.get("metadata")}
    size = len(json.dumps(item, separators=(",", ":")))
    if size > MAX_OBJECT_BYTES:
        return f"the object is larger than {MAX_OBJECT_BYTES // 1024} KiB ({size} bytes)"
    return item


def objects(paths: Sequence[Path], wanted: Sequence[ObjectRef]) -> dict[ObjectRef, Read]:
    """The wanted objects found in the files; the others "not in the objects files"."""
    want = set(wanted)
    reads: dict[ObjectRef, Read] = {}
    for path in paths:
        for item, _ in items(load_document(path), str(path)):
            ref = _ref(item)
            if ref in want and ref not in reads:
                reads[ref] = _kept(item, ref)
    for ref in wanted:
        reads.setdefault(ref, "not in the objects files")
    return reads
