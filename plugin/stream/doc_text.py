"""Documents identified from their lines, proved by one libyaml pass that builds no Python objects.

Most rendered documents are plain block mappings: ``apiVersion:``, ``kind:`` and ``metadata:`` lines at
column 0, ``name:``/``namespace:`` lines in the metadata block. Reading those lines is much cheaper than
walking libyaml's events in Python, but a line that looks like a key may sit inside a multi-line quoted
scalar or flow collection. So a copy of the stream gets a ``---`` line before every column-0 key line
and before every metadata line read, and libyaml parses that copy without building anything
(``CParser.raw_parse``). A document indicator at column 0 inside a quoted scalar or a flow collection is
a syntax error, and block scalars cannot reach those lines (their content is indented deeper than the
key that holds them), so a clean parse proves that every line read is a key where it appears to be, and
that the stream's syntax is sound (each piece parses, and the pieces join at block-context key lines).

Anything else is declined, never guessed: such a document is walked as before (plugin/stream/documents.py), on
its own span. Declined are tags, anchors and aliases, keys given twice, ``items``, non-plain keys,
values that are not one-line scalars, nesting that might reach the walk's depth limit, and whole streams
with directives, a BOM, or line breaks other than ``\\n``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from typing import Any

import yaml

from argocd_lifecycle.yaml import kube_yaml

#: libyaml's own parser, which can parse a stream without building events (PyYAML's C extension;
#: without it the event walk does all of it)
_RawParser: Any = getattr(getattr(yaml, "cyaml", None), "CParser", None)

#: Everything below runs on ``"\n" + text``: each line is then found by the ``\n`` before it (a fast
#: literal search), and the ``\n`` before a line is at the offset of that line's start in ``text``.
#: A line at column 0: a document marker, a plain key (then whether the next line is at column 0 too),
#: an entry of a sequence written at its key's indentation, or anything else; comments and indented
#: lines are skipped.
_COL0 = re.compile(
    r"\n(?:(---|\.\.\.)(?=[ \t\n]|\Z)(.*)"
    r"|([A-Za-z0-9_][A-Za-z0-9_./-]*):(?=[ \t\n]|\Z)(.*)(?:(?=\n[^ \t\n#]|\n?\Z)())?"
    r"|(-)(?=[ \t\n]|\Z)"
    r"|(?=[^ \n#]))"
)
#: an indented line with content (a comment is not content): its indentation, then a plain key and
#: the rest of the line, or the whole rest
INDENTED = re.compile(r"\n( +)(?:([A-Za-z0-9_][A-Za-z0-9_./-]*):(?=[ \t\n]|\Z)(.*)|([^ \n#].*))")
_DEEPER = re.compile(r"\n[ \t]+[^ \t\n#]")
_QUOTED_KEY = re.compile(r"(?:\"[^\"\\\n]*\"|'[^'\n]*'):(?:[ \t]|\Z)")
#: a one-line scalar after ``key:``: plain, single- or double-quoted (no escapes), or nothing; a comment
VALUE = re.compile(
    r"[ \t]*(?:([A-Za-z0-9_./~][A-Za-z0-9_./:@+=~-]*)|'((?:[^'\n]|'')*)'|\"([^\"\\\n]*)\")?[ \t]*(?:(?<=[ \t])#.*)?\Z"
)
NOTHING = re.compile(r"[ \t]*(?:(?<=[ \t])#.*)?\Z")
#: ``metadata: {name: a, namespace: b}`` on one line: plain keys, one-line scalars (no ``:`` in a plain
#: one: in a flow mapping it may end the scalar)
_FLOW_KEY = r"[A-Za-z0-9_][A-Za-z0-9_./-]*"
_FLOW_VALUE = r"[A-Za-z0-9_./~][A-Za-z0-9_./@+=~-]*|'(?:[^'\n]|'')*'|\"[^\"\\\n]*\""
_FLOW_ITEM = re.compile(rf"({_FLOW_KEY}):[ \t]+({_FLOW_VALUE})")
_FLOW_ENTRY = rf"{_FLOW_KEY}:[ \t]+(?:{_FLOW_VALUE})"
FLOW_MAPPING = re.compile(
    rf"[ \t]*\{{[ \t]*({_FLOW_ENTRY}(?:[ \t]*,[ \t]*{_FLOW_ENTRY})*)?[ \t]*\}}[ \t]*(?:(?<=[ \t])#.*)?\Z"
)
#: the stream as a whole is declined for these (directives, BOMs, other line breaks)
_STREAM_DECLINED = ("\n%", "\r", "\x85", "\u2028", "\u2029", "\ufeff")
#: where a tag, an anchor or an alias may start (after a blank or a flow indicator; in a scalar this is
#: merely conservative, and in a stream libyaml parses, ``&`` or ``*`` with no name after it is none)
_SPECIAL_AFTER = frozenset(" \t\n[]{},:\r\x85\u2028\u2029\ufeff")  # blanks, flow indicators, line breaks, BOM
#: an anchor or an alias has a name of these (libyaml refuses an empty one): ``a && b`` or ``'*.x'`` has none
_ANCHOR_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-")
_TOP = frozenset(("apiVersion", "kind"))
_META = frozenset(("name", "namespace", "generateName"))
_SHAPED = frozenset(("labels", "annotations"))
#: top-level keys whose values are read (or that decline the document)
_READ = frozenset(("apiVersion", "kind", "metadata", "items"))
_NO_VALUE = object()
#: identity values seen (apiVersions, kinds and namespaces repeat across documents)
_scalars: dict[str, Any] = {}
_SCALARS_MAX = 10_000
_deep_lines: dict[int, re.Pattern[str]] = {}

#: per document: (start, end, line, column, fields); ``fields`` is None for a document to walk
Found = tuple[int, int, int, int, "dict[str, Any] | None"]


def _deep(width: int) -> re.Pattern[str]:
    """Lines whose leading blanks and block indicators are at least ``width`` long: this over-estimates
    the column where a block collection may start on them."""
    pattern = _deep_lines.get(width)
    if pattern is None:
        pattern = _deep_lines[width] = re.compile(rf"\n[ \t?:-]{{{width}}}")
    return pattern


def _scalar(rest: str) -> Any:
    """The value of a one-line identity scalar as the walk reads it, or _NO_VALUE (decline)."""
    found = _scalars.get(rest, _NO_VALUE)
    if found is _NO_VALUE:
        if len(_scalars) > _SCALARS_MAX:
            _scalars.clear()
        found = _scalars[rest] = _read_scalar(rest)
    return found


def _read_scalar(rest: str) -> Any:
    m = VALUE.match(rest)
    if m is None:
        return _NO_VALUE
    plain, single, double = m.groups()
    if plain is not None:
        tag, value = kube_yaml.resolve_plain(plain)
        return value if tag == kube_yaml.STR else None if tag == kube_yaml.NULL else _NO_VALUE
    if single is not None:
        return single.replace("''", "'")
    return double  # None when the line has no value


class _Doc:
    """One document: ``segment``, ``start`` and ``end`` are offsets in ``text``, ``body`` and ``stop``
    in ``t`` (``"\n" + text``): its lines are those after ``body`` whose ``\n`` is before ``stop``."""

    __slots__ = (
        "body", "column", "declined", "end", "fields", "first", "keys", "last", "line", "marks", "pending",
        "pending_end", "segment", "start", "stop",
    )  # fmt: skip

    def __init__(self, segment: int, start: int, body: int, line: int, column: int) -> None:
        self.segment, self.start, self.body, self.line, self.column = segment, start, body, line, column
        self.end = self.stop = -1  # where it ends in text, and in t
        self.declined = False
        self.fields: dict[str, Any] = {}
        self.marks: list[int] = []  # where a ``---`` line goes in the proof copy
        self.keys: set[str] = set()
        self.first = -1  # where its first column-0 line is (-1: none yet)
        self.last = ""  # its last column-0 key
        self.pending = ""  # a column-0 key whose value lines are still to be looked at
        self.pending_end = 0  # where that key's line ends

    def first_key(self, t: str, at: int) -> None:
        self.first = at
        if at != self.body and _DEEPER.search(t, self.body, at):
            self.declined = True  # indented content before the first key: not a column-0 mapping

    def read_key(self, t: str, m: re.Match[str], key: str, val: str, next_col0: str | None) -> None:
        """A column-0 key whose value is read (apiVersion, kind, metadata) or that declines (items)."""
        if key == "metadata":
            if not val or NOTHING.match(val):
                self.pending, self.pending_end = key, m.end()
                return
            if not _flow_metadata(val, self.fields):
                self.declined = True  # a tag, an anchor, a scalar, a nested flow: the walk judges it
            if next_col0 is None:
                self.pending, self.pending_end = "metadata:", m.end()  # complete: no deeper lines may follow
            return
        if key == "items":
            self.declined = True  # maybe a List (its items are the objects)
            return
        found = _scalars.get(val, _NO_VALUE)
        if found is _NO_VALUE:
            found = _scalar(val)
        if found is _NO_VALUE:
            self.declined = True
        else:
            self.fields[key] = found
        if next_col0 is None:
            self.pending, self.pending_end = key, m.end()

    def settle(self, t: str, stop: int) -> None:
        """Look at the value lines of the pending key: they run to ``stop``."""
        if self.pending == "metadata":
            if not _metadata(t, self, self.pending_end, stop):
                self.declined = True
        elif _DEEPER.search(t, self.pending_end, stop):
            self.declined = True  # a plain scalar going on in deeper lines, or more than a scalar
        self.pending = ""

    def close(self, t: str, stop: int, docs: list[_Doc]) -> None:
        if self.pending:
            self.settle(t, stop)
        self.stop = stop
        self.end = min(stop, len(t) - 1)
        if self.first < 0:
            if not _DEEPER.search(t, self.body, stop):
                return  # empty (comments at most)
            self.declined = True  # content that does not start at column 0
        docs.append(self)


class _Declined(Exception):
    """The whole stream goes to the walk."""


class _Splitter:
    """The documents of ``t`` from its column-0 lines, in one pass."""

    def __init__(self, t: str) -> None:
        self.t = t
        self.docs: list[_Doc] = []
        self.doc: _Doc | None = None
        self.explicit_seen = False  # a ``---`` or ``...`` was seen: no document may start without ``---``
        self.line_at = self.line = 0  # line numbers, counted on as the pass goes

    def line_of(self, at: int) -> int:
        self.line += self.t.count("\n", self.line_at, at)
        self.line_at = at
        return self.line

    def current(self, at: int) -> _Doc:
        """The document a line at ``at`` belongs to (the implicit first one may start here)."""
        if self.doc is None:
            if self.explicit_seen:
                raise _Declined  # content after ``...`` without ``---``: the walk reports the error
            self.doc = _Doc(0, 0, 0, self.line_of(at), 0)
        return self.doc

    def separator(self, sep: str, rest: str, at: int, end: int) -> None:
        t, doc = self.t, self.doc
        if doc is None and not self.explicit_seen:
            if sep == "...":
                raise _Declined  # a stream that starts with ``...``: the walk has the answer
            if _DEEPER.search(t, 0, at):
                doc = _Doc(0, 0, 0, 0, 0)  # an implicit first document that starts indented
        if doc is not None:
            doc.close(t, at, self.docs)
            self.doc = None
        self.explicit_seen = True  # after ``...`` too: only ``---`` may start a document
        if sep == "---":
            self.doc = doc = _Doc(at, at + 3, end, self.line_of(at), 3)
            if rest and not NOTHING.match(rest):
                doc.declined = True  # a node on the marker line
                doc.first = at

    def run(self) -> list[_Doc]:
        t = self.t
        for m in _COL0.finditer(t):
            sep, rest, key, val, next_col0, dash = m.groups()
            at = m.start()
            doc = self.doc
            if doc is not None and doc.pending:
                doc.settle(t, at)
            if key is not None:
                if doc is None:
                    doc = self.current(at)
                if doc.first < 0:
                    doc.first_key(t, at)
                else:
                    doc.marks.append(at)
                keys = doc.keys
                if key in keys:
                    doc.declined = True  # the last of two wins when loaded
                keys.add(key)
                doc.last = key
                if key in _READ:
                    doc.read_key(t, m, key, val, next_col0)
            elif sep is not None:
                self.separator(sep, rest, at, m.end())
            elif dash is None or doc is None or doc.first < 0 or doc.last in _READ:
                doc = self.current(at)  # any other line at column 0: the walk judges the document
                doc.declined = True
                if doc.first < 0:
                    doc.first = at
            # else: an entry of a sequence written at its key's indentation, the value of a key not read
        doc = self.doc
        if doc is None and not self.explicit_seen and _DEEPER.search(t):
            doc = _Doc(0, 0, 0, 0, 0)
        if doc is not None:
            doc.close(t, len(t), self.docs)
        return self.docs


def _metadata(t: str, doc: _Doc, start: int, end: int) -> bool:
    """Read the metadata block ``t[start:end]`` into ``doc``; False: decline the document."""
    indent = -1
    seen: set[str] = set()
    current = ""  # the metadata key whose deeper lines follow
    shaped_open = False  # labels/annotations with no inline value, before their first deeper line
    fields, marks = doc.fields, doc.marks
    for m in INDENTED.finditer(t, start, end):
        spaces, key, value, other = m.groups()
        width = len(spaces)
        if indent < 0:
            indent = width
        if width > indent:
            if current in _META:
                return False  # a plain scalar going on, or more than a scalar
            if shaped_open:
                shaped_open = False
                if key is None and not _QUOTED_KEY.match(other):
                    return False  # labels or annotations that may not be a mapping
            continue
        if width < indent or key is None or key in seen:
            return False  # not a plain key (a tab, a sequence, a quoted key...), or a key given twice
        seen.add(key)
        current, shaped_open = key, False
        if key in _META:
            found = _scalar(value)
            if found is _NO_VALUE:
                return False
            fields[key] = found
            marks.append(m.start())
        elif key in _SHAPED:
            if not value or NOTHING.match(value):
                shaped_open = True
            elif not value.lstrip(" \t").startswith("{"):
                return False  # a scalar or a sequence: the walk judges it
            marks.append(m.start())
    return indent >= 0  # no block below ``metadata:``: the walk judges it


def _flow_metadata(value: str, fields: dict[str, Any]) -> bool:
    """Read ``{name: a, namespace: b}`` into ``fields``; False: decline the document."""
    m = FLOW_MAPPING.match(value)
    if m is None:
        return False
    seen: set[str] = set()
    for key, raw in _FLOW_ITEM.findall(m.group(1) or ""):
        if key in seen or key in _SHAPED:
            return False  # given twice; labels or annotations that are not a block (the walk judges)
        seen.add(key)
        if key in _META:
            found = _scalar(" " + raw)
            if found is _NO_VALUE:
                return False
            fields[key] = found
    return True


def _token_starts(t: str, chars: str) -> Iterator[int]:
    """Where in ``t`` a tag (``!``), an anchor (``&``) or an alias (``*``) may start: after a blank or
    a flow indicator; ``&`` and ``*`` with a name after them (libyaml refuses an empty name)."""
    for char in chars:
        at = t.find(char)
        while at >= 0:
            if t[at - 1] in _SPECIAL_AFTER and (char == "!" or t[at + 1 : at + 2] in _ANCHOR_CHARS):
                yield at
            at = t.find(char, at + 1)


def may_hold_aliases(text: str) -> bool:
    """False when no alias can be in ``text`` (if it is valid YAML): ``*`` in quoted strings, globs and
    shell lines is no alias. Cheaper than parsing; conservative."""
    return "*" in text and next(_token_starts("\n" + text.removeprefix("\ufeff"), "*"), -1) >= 0


def _screen(t: str, docs: list[_Doc], max_depth: int) -> None:
    """Decline documents with tags, anchors or aliases, or that might nest past ``max_depth``."""
    starts = [d.start for d in docs]
    for at in _token_starts(t, "!&*"):
        i = bisect_right(starts, at - 1) - 1
        if i >= 0:
            docs[i].declined = True
    for d in docs:
        if d.declined:
            continue
        flows = t.count("[", d.body, d.stop) + t.count("{", d.body, d.stop)
        # block collections on one path: at most two per column they start at (a mapping and a
        # sequence written at its key's indentation), flow ones at most one per bracket
        width = (max_depth - flows) // 2
        if width < 1 or _deep(width).search(t, d.body, d.stop):
            d.declined = True


def _proof(t: str, docs: list[_Doc]) -> tuple[str, list[int]]:
    """The copy with a ``---`` line before every line read, and where each document starts in it."""
    parts: list[str] = []
    starts: list[int] = []
    pos = size = 0
    for d in docs:
        starts.append(size + d.segment - pos)
        if d.declined:
            continue
        for mark in d.marks:
            parts.append(t[pos:mark])
            size += mark - pos + 4
            pos = mark
            parts.append("\n---")
    parts.append(t[pos:])
    return "".join(parts), starts


def _parses(text: str) -> int | None:
    """None when libyaml parses ``text``, else where it failed (-1: no place)."""
    try:
        _RawParser(text).raw_parse()
    except Exception as exc:  # any refusal is libyaml's; the walk reports it properly
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        return mark.index if mark is not None else -1
    return None


def index_text(text: str, max_depth: int) -> list[Found] | None:
    """Per non-empty document: ``(start, end, line, column, fields)`` when its lines settle its identity,
    or ``(segment, end, segment line, 0, None)``: the span to walk (from its ``---`` line, or 0).
    None: walk the whole stream (declined, or not valid YAML: the walk raises with the place)."""
    if _RawParser is None:
        return None  # pragma: no cover
    t = "\n" + text
    if any(part in t for part in _STREAM_DECLINED):  # each a fast search of its own
        return None
    try:
        docs = _Splitter(t).run()
    except _Declined:
        return None
    _screen(t, docs, max_depth)
    for _attempt in range(3):
        proof, starts = _proof(t, docs)
        failed = _parses(proof)
        if failed is None:
            break
        i = bisect_right(starts, failed) - 1
        if failed < 0 or i < 0 or docs[i].declined:
            return None
        docs[i].declined = True  # a line read is not what it seems (in a quoted scalar, a flow)
    else:
        return None
    return [
        (d.segment, d.end, d.line if d.segment else 0, 0, None)
        if d.declined
        else (d.start, d.end, d.line, d.column, d.fields)
        for d in docs
    ]
