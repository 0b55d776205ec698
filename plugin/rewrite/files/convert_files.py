"""``convert`` on files: documents that need nothing are copied byte for byte, only the others are
loaded and rewritten. A rewritten document whose only changes are its apiVersion and the
rewritten-from annotation keeps its text with those two edits (plugin/rewrite/files/text_edit.py); any other
is written out anew (its comments are not kept). Renames (nothing else changes, whatever the object
holds) of documents identified from their lines are edited without loading them, when the text settles
that loading would give the same."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import yaml

from argocd_lifecycle.plugin.rewrite.engine import DROPPED, Rewriter
from argocd_lifecycle.plugin.rewrite.files import text_edit
from argocd_lifecycle.plugin.rewrite.files.sources import Source, index, is_json, list_sources, load, read
from argocd_lifecycle.plugin.stream.documents import DocInfo
from argocd_lifecycle.yaml import yamlio


@dataclass
class Converted:
    source: Source
    text: str
    changed: bool
    #: (label, object) of every output document, when asked for (validation)
    objects: list[tuple[str, Any]] = field(default_factory=list)


def join_documents(parts: list[str]) -> str:
    out = [p.lstrip("\n") for p in parts]
    return "---\n".join(p if p.endswith("\n") else p + "\n" for p in out)


def _load_together(text: str, docs: list[DocInfo]) -> dict[int, Any]:
    """The objects of ``docs`` (exact YAML documents: no aliases) by document index, loaded in one
    pass rather than one loader each; empty when that pass fails (each is then loaded on its own, and
    its error names it)."""
    if len(docs) < 2:
        return {}
    parts = [t if t.endswith("\n") else t + "\n" for t in (d.text(text) for d in docs)]
    try:
        objs = list(yamlio.load_all("---\n".join(parts)))
    except (yaml.YAMLError, ValueError, OverflowError):
        return {}
    if len(objs) != len(docs):  # pragma: no cover - exact documents are mappings, never empty
        return {}
    return {d.index: o for d, o in zip(docs, objs, strict=True)}


def _renamed(text: str, doc: DocInfo, rewriter: Rewriter) -> tuple[str, str] | None:
    """(new apiVersion, edited text) of a document renamed without loading it, when that gives what
    loading it would (plugin/rewrite/files/text_edit.py ``renamed`` says when)."""
    if not doc.from_lines or doc.api_version is None or doc.kind is None:
        return None
    own = doc.text(text)
    if not text_edit.loads_plainly(own):
        return None
    to = rewriter.renamed_to(doc.api_version, doc.kind, own)
    kept = None if to is None else text_edit.renamed(own, doc.api_version, to)
    return None if to is None or kept is None else (to, kept)


def _identity(doc: DocInfo) -> dict[str, Any]:
    """What messages name an object by (objects.describe), from its document's identity."""
    meta = {"name": doc.name, "namespace": doc.namespace, "generateName": doc.generate_name}
    return {"apiVersion": doc.api_version, "kind": doc.kind, "metadata": meta}


def convert_text(source: Source, text: str, rewriter: Rewriter, *, keep_objects: bool = False) -> Converted:
    parts: list[str] = []
    result = Converted(source, text, False)
    docs = index(source, text)
    needed = {d.index for d in docs if keep_objects or not d.exact or rewriter.needs(d.api_version, d.kind)}
    # renames need no object (unless every object is kept for validation)
    candidates = [] if keep_objects else [d for d in docs if d.index in needed]
    renamed = {d.index: r for d in candidates if (r := _renamed(text, d, rewriter)) is not None}
    wanted = [d for d in docs if d.index in needed and d.index not in renamed]
    loaded = {} if is_json(source) else _load_together(text, [d for d in wanted if d.exact])
    for doc in docs:
        where = f"{source.label}#{doc.index}"
        if doc.index not in needed:
            parts.append(doc.text(text))
            continue
        if doc.index in renamed:
            to, as_renamed = renamed[doc.index]
            rewriter.record_rename(_identity(doc), where, str(doc.api_version), to)
            result.changed = True
            parts.append(as_renamed)
            continue
        obj = loaded[doc.index] if doc.index in loaded else load(source, text, doc)
        new = rewriter.rewrite(obj, where)
        if new is DROPPED:
            result.changed = True
            continue
        if keep_objects:
            result.objects.append((where, new))
        if new is obj:
            parts.append(doc.text(text))
        elif is_json(source):
            result.changed = True
            parts.append(json.dumps(new, indent=2))
        else:
            result.changed = True
            kept = text_edit.edited(doc.text(text), obj, new) if doc.from_lines else None
            parts.append(kept if kept is not None else yamlio.dump(new))
    if result.changed:
        result.text = join_documents(parts)
    return result


def convert_paths(paths: list[str], rewriter: Rewriter, *, keep_objects: bool = False) -> list[Converted]:
    """Every file converted in memory (``keep_objects``: with the output objects, for validation);
    raises before anything is written when a file is bad."""
    return [convert_text(source, read(source), rewriter, keep_objects=keep_objects) for source in list_sources(paths)]
