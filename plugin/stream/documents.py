"""A YAML stream's documents: where each one is in the text and which object it is, without building it.

The plugin passes every document no transform changes through byte for byte, and ``scan``/``convert``
report and copy documents the same way, so all three need each document's span and identity
(``apiVersion``, ``kind``, ``metadata.name``/``generateName``/``namespace``) but not the object. libyaml's
event stream gives both about twice as fast as building the documents, and it checks the syntax of the
whole stream on the way. Identity scalars are read with Kubernetes' rules (core/yaml/kube_yaml.py).

A document whose identity or meaning the events cannot settle is marked inexact and its callers load it
in full (under the loader's limits): aliases, explicit tags, merge and complex keys, identity values that
are not strings, ``items`` (maybe a ``*List``), deep nesting.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from argocd_lifecycle.plugin.stream import doc_text
from argocd_lifecycle.yaml import kube_yaml, yamlio

#: libyaml's parser alone (no resolver or constructor is needed for events)
_PARSER: Any = getattr(getattr(yaml, "cyaml", None), "CParser", None) or yaml.SafeLoader
_SCALAR, _ALIAS = yaml.ScalarEvent, yaml.AliasEvent
_MAPPING_START, _MAPPING_END = yaml.MappingStartEvent, yaml.MappingEndEvent
_SEQUENCE_START, _SEQUENCE_END = yaml.SequenceStartEvent, yaml.SequenceEndEvent
_DOCUMENT_START, _DOCUMENT_END, _STREAM_END = yaml.DocumentStartEvent, yaml.DocumentEndEvent, yaml.StreamEndEvent
_TOP = frozenset(("apiVersion", "kind"))
_META = frozenset(("name", "namespace", "generateName"))
#: metadata fields later steps rely on being mappings
_SHAPED = frozenset(("labels", "annotations"))
#: past this nesting a document is loaded in full, so the loader's depth limit judges it
MAX_EXACT_DEPTH = 64
#: stands for an identity value the events cannot settle
_UNSETTLED = object()


@dataclass(frozen=True)
class DocInfo:
    #: 0-based index among the stream's non-empty documents (the plugin's Manifest.index)
    index: int
    start: int
    end: int
    api_version: str | None = None
    kind: str | None = None
    #: ``metadata.name``, ``metadata.namespace``, ``metadata.generateName``
    name: str | None = None
    namespace: str | None = None
    generate_name: str | None = None
    #: the root is a mapping (a candidate Kubernetes object)
    mapping: bool = True
    #: False when the events cannot settle the identity or meaning: load the document to be sure
    exact: bool = True
    #: where ``start`` is (0-based), to place errors of a document loaded on its own
    line: int = 0
    column: int = 0
    #: identified from its lines (plugin/stream/doc_text.py): its column-0 keys, ``metadata:`` block and the
    #: metadata lines read are proved to be what they look like, so its text may be edited there
    from_lines: bool = False

    def text(self, stream: str) -> str:
        return stream[self.start : self.end]


def _value(event: Any) -> Any:
    """An identity scalar as Kubernetes reads it: its string, None, or _UNSETTLED (a number, a tag)."""
    if event.tag is not None or event.anchor is not None:
        return _UNSETTLED
    if not event.implicit[0]:
        return event.value  # quoted
    tag, value = kube_yaml.resolve_plain(event.value)
    if tag == kube_yaml.STR:
        return value
    return None if tag == kube_yaml.NULL else _UNSETTLED


class _Doc:
    """Mutable state while one document's events stream by (``depth`` 1 = the root mapping's entries)."""

    __slots__ = ("column", "empty", "exact", "fields", "in_meta", "key", "line", "mapping", "meta_key", "seen", "start")

    def __init__(self, start: int, line: int, column: int) -> None:
        self.start, self.line, self.column = start, line, column
        self.fields: dict[str, Any] = {}
        self.key: str | None = None  # pending key at depth 1 (None: expecting a key)
        self.meta_key: str | None = None  # pending key inside metadata
        self.in_meta = False
        self.mapping = False
        self.exact = True
        self.empty = True
        self.seen: set[str] = set()

    def scalar(self, event: Any, depth: int) -> None:
        if event.tag is not None:
            self.exact = False  # an explicit tag may change the value, or be refused when loaded
        if depth == 1:
            if self.key is None:
                self.key = key = event.value
                # a merge key, or a key given twice (the last one wins when loaded)
                self.exact = self.exact and key != "<<" and key not in self.seen
                self.seen.add(key)
            else:
                if self.key in _TOP:
                    self._set(self.key, _value(event))
                self.key = None
        elif depth == 2 and self.in_meta:
            if self.meta_key is None:
                self.meta_key = event.value
            else:
                if self.meta_key in _META:
                    self._set(self.meta_key, _value(event))
                elif self.meta_key in _SHAPED and _value(event) is not None:
                    self.exact = False  # labels or annotations that are not a mapping
                self.meta_key = None
        elif depth == 0:
            self.empty = bool(event.implicit[0] and kube_yaml.plain_tag(event.value) == kube_yaml.NULL)
            self.empty = self.empty and event.tag is None

    def _set(self, key: str, value: Any) -> None:
        if value is _UNSETTLED:
            self.exact = False
        else:
            self.fields[key] = value

    def start_collection(self, event: Any, is_mapping: bool, depth: int) -> None:
        if event.tag is not None or depth >= MAX_EXACT_DEPTH:
            self.exact = False
        if depth == 0:
            self.empty = False
            self.mapping = is_mapping
        elif depth == 1:
            if self.key is None:
                self.exact = False  # a collection used as a key
            elif self.key == "metadata" and is_mapping:
                self.in_meta = True
            elif self.key == "items" or self.key in _TOP or self.key == "metadata":
                self.exact = False  # maybe a List (its items are the objects), or an identity not a string
        elif (
            depth == 2
            and self.in_meta
            and (self.meta_key is None or self.meta_key in _META or (self.meta_key in _SHAPED and not is_mapping))
        ):
            self.exact = False

    def end_collection(self, depth: int) -> None:
        """``depth`` is the depth after the collection closed."""
        if depth == 1:
            self.key = None
            self.in_meta = False
        elif depth == 2 and self.in_meta:
            self.meta_key = None

    def alias(self, depth: int) -> None:
        self.exact = False  # aliases are loaded, so the loader's alias limits see them
        if depth == 0:
            self.empty = False
        elif depth == 1:
            self.key = None if self.key is not None else "*"
        elif depth == 2 and self.in_meta:
            self.meta_key = None if self.meta_key is not None else "*"


def _documents(text: str) -> Iterator[tuple[_Doc, int]]:
    """Yield (state, end offset) per document. The loop is the hot path of ``scan``: events below the
    metadata level only matter for their tags and their depth."""
    depth = 0
    # libyaml skips a leading BOM without counting it in its marks
    bom = 1 if text.startswith("\ufeff") else 0
    doc = _Doc(0, 0, 0)
    first = True
    parser = _PARSER(text)
    get: Any = parser.get_event
    try:
        while True:
            event = get()
            cls = event.__class__
            if cls is _SCALAR:
                if depth > 2:
                    if event.tag is not None:
                        doc.exact = False
                else:
                    doc.scalar(event, depth)
            elif cls is _MAPPING_START or cls is _SEQUENCE_START:
                if depth > 2:
                    if event.tag is not None or depth >= MAX_EXACT_DEPTH:
                        doc.exact = False
                else:
                    doc.start_collection(event, cls is _MAPPING_START, depth)
                depth += 1
            elif cls is _MAPPING_END or cls is _SEQUENCE_END:
                depth -= 1
                if depth < 3:
                    doc.end_collection(depth)
            elif cls is _ALIAS:
                doc.alias(depth)
            elif cls is _DOCUMENT_START:
                mark = event.start_mark if first and not event.explicit else event.end_mark
                doc = _Doc(bom if first and not event.explicit else mark.index + bom, mark.line, mark.column)
                first = False
            elif cls is _DOCUMENT_END:
                yield doc, event.start_mark.index + bom
            elif cls is _STREAM_END:
                return
    finally:
        parser.dispose()


def _walk(text: str, shift: int = 0, line_shift: int = 0, first_index: int = 0) -> list[DocInfo]:
    """The non-empty documents of ``text`` from libyaml's events; offsets and lines moved by the shifts
    (``text`` is then a span of a larger stream that starts at a line's start)."""
    out: list[DocInfo] = []
    for doc, end in _documents(text):
        if doc.empty:
            continue
        f = doc.fields
        out.append(
            DocInfo(
                index=first_index + len(out),
                start=doc.start + shift,
                end=end + shift,
                api_version=f.get("apiVersion"),
                kind=f.get("kind"),
                name=f.get("name"),
                namespace=f.get("namespace"),
                generate_name=f.get("generateName"),
                mapping=doc.mapping,
                exact=doc.exact,
                line=doc.line + line_shift,
                column=doc.column,
            )
        )
    return out


def walk_documents(text: str) -> list[DocInfo]:
    """Every non-empty document of ``text`` from libyaml's events alone (what ``index_documents`` must
    agree with). Raises yaml.YAMLError (with marks) on bad syntax."""
    return _walk(text)


def index_documents(text: str) -> list[DocInfo]:
    """Every non-empty document of ``text``: from its lines where they settle it (plugin/stream/doc_text.py),
    else from libyaml's events. Raises yaml.YAMLError (with marks) on bad syntax."""
    found = doc_text.index_text(text, MAX_EXACT_DEPTH)
    if found is None:
        return _walk(text)
    out: list[DocInfo] = []
    for start, end, line, column, fields in found:
        if fields is None:
            try:
                walked = _walk(text[start:end], start, line, len(out))
            except yaml.YAMLError:  # pragma: no cover - the stream parsed: a span of it parses alone
                return _walk(text)
            if len(walked) != 1:  # pragma: no cover - likewise, one document per span
                return _walk(text)
            out.append(walked[0])
            continue
        out.append(
            DocInfo(
                len(out),
                start,
                end,
                fields.get("apiVersion"),
                fields.get("kind"),
                fields.get("name"),
                fields.get("namespace"),
                fields.get("generateName"),
                True,
                True,
                line,
                column,
                True,
            )
        )
    return out


def load_document(stream: str, doc: DocInfo) -> Any:
    """One document loaded on its own; errors keep their place in the whole stream."""
    try:
        return yamlio.load(doc.text(stream))
    except yaml.MarkedYAMLError as exc:
        exc.problem_mark = _shifted(exc.problem_mark, doc)
        exc.context_mark = _shifted(exc.context_mark, doc)
        raise


def _shifted(mark: Any, doc: DocInfo) -> Any:
    if mark is None:
        return None
    column = mark.column + (doc.column if mark.line == 0 else 0)
    return yaml.error.Mark(mark.name, mark.index + doc.start, mark.line + doc.line, column, None, 0)
