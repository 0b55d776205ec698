"""Read a tool's output without rebuilding it: every document becomes a Manifest that keeps its text.

Each document is identified from libyaml's events (plugin/stream/documents.py) and built only when a transform
asks for its object; one no transform changes is written out as the tool emitted it, byte for byte.
What the events cannot settle is loaded in full right away, through the same loader, limits and object
checks as ever (plugin/stream/parse.py): aliases (so alias limits count the whole stream), explicit tags,
``List`` objects (flattened), odd shapes. Secrets are loaded too, so their values can be masked.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

import yaml

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.stream import doc_text
from argocd_lifecycle.plugin.stream.documents import DocInfo, index_documents, load_document
from argocd_lifecycle.plugin.stream.manifest import Identity, Manifest, Obj
from argocd_lifecycle.plugin.stream.parse import Budget, load_documents, syntax_error, to_manifests
from argocd_lifecycle.yaml import yamlio


def _identity(doc: DocInfo) -> Identity | None:
    """The identity when the events settled it and it makes a valid object (else: load and check)."""
    if not (doc.exact and doc.mapping and doc.api_version and doc.kind and (doc.name or doc.generate_name)):
        return None
    if doc.kind == "Secret" and doc.api_version == "v1":
        return None  # loaded at once: its values are masked in every message
    return Identity(doc.api_version, doc.kind, doc.name or "", doc.namespace or "")


def _builder(stream: str, doc: DocInfo, source: str) -> Any:
    def build() -> Obj:
        try:
            obj: Obj = load_document(stream, doc)
        except yaml.YAMLError as exc:
            raise RenderError(syntax_error(source, exc, stream)) from exc
        return obj

    return build


def _placed(manifests: list[Manifest], obj: Any, doc: DocInfo, stream: str) -> list[Manifest]:
    """The manifests loaded from one document, numbered as in the stream: the document itself keeps its
    text; the items of a flattened ``List`` are written out one by one."""
    if len(manifests) == 1 and manifests[0].built is obj:
        return [dataclasses.replace(manifests[0], index=doc.index, text=_text(doc, stream))]
    return [dataclasses.replace(m, index=doc.index) for m in manifests]


#: what is left of a ``---`` line before the document's first line (spaces, a comment is kept)
_MARKER_REST = re.compile(r"\A(?:[ \t]*\n)+")


def _text(doc: DocInfo, stream: str) -> str:
    """The document's own lines: the separator line is written anew (as ``---``) by the output."""
    text = _MARKER_REST.sub("", doc.text(stream))
    return text if text.endswith("\n") else text + "\n"


def read_stream(
    text: str, source: str, *, limits: yamlio.Limits = yamlio.DEFAULT_LIMITS, budget: Budget | None = None
) -> list[Manifest]:
    """The manifests of a YAML stream, in order. Raises RenderError as parse.load_documents does."""
    if len(text) > limits.max_expanded_bytes or ("&" in text and doc_text.may_hold_aliases(text)):
        return _read_loaded(text, source, limits, budget)
    try:
        docs = index_documents(text)
    except yaml.YAMLError as exc:
        raise RenderError(syntax_error(source, exc, text)) from exc
    if budget is not None:
        budget.spend(len(text), source)  # without aliases a stream expands to its own size
    out: list[Manifest] = []
    problems: list[str] = []
    for doc in docs:
        identity = _identity(doc)
        if identity is not None:
            out.append(
                Manifest(None, source, doc.index, _text(doc, stream=text), identity, _builder(text, doc, source))
            )
            continue
        try:
            obj = load_document(text, doc)
        except yaml.YAMLError as exc:
            problems.append(syntax_error(source, exc, text))
            continue
        if obj is None:
            continue
        try:
            out.extend(_placed(to_manifests([obj], source), obj, doc, text))
        except RenderError as exc:
            problems.extend(line.replace(f"{source}#0", f"{source}#{doc.index}", 1) for line in exc.lines())
    if problems:
        raise RenderError(problems[0], problems=problems)
    return out


def _read_loaded(text: str, source: str, limits: yamlio.Limits, budget: Budget | None) -> list[Manifest]:
    """A stream that may hold aliases: loaded whole, so the alias limits count all of it; documents
    still keep their text when the index lines up with what was loaded."""
    objs = load_documents(text, source, limits=limits, budget=budget)
    manifests = to_manifests(objs, source)
    try:
        docs = index_documents(text)
    except yaml.YAMLError:  # pragma: no cover - the loader read the same text without error
        return manifests
    if len(docs) != len(objs):  # a document that loads as nothing (``!!null``): write them all out
        return manifests
    out: list[Manifest] = []
    for doc, obj in zip(docs, objs, strict=True):
        out.extend(_placed([m for m in manifests if m.index == doc.index], obj, doc, text))
    return out


def secret_objects(manifests: Iterable[Manifest]) -> list[Obj]:
    """The Secret objects among ``manifests`` (always loaded: see ``_identity``)."""
    return [m.obj for m in manifests if m.kind == "Secret" and m.api_version == "v1"]
