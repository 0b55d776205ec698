"""A rewritten document written as its own text with two edits, when that is all the rewrite changed.

Most conversions change only ``apiVersion`` and add the ``rewritten-from`` annotation. For a document
identified from its lines (plugin/stream/doc_text.py proved its column-0 keys and metadata lines are what they
look like), the apiVersion value is replaced in place and the annotation is added as one more line (or
flow entry): comments and formatting stay, and no object is serialised. Anything else (another field
changed, the annotation already there, a layout not covered) returns None and the object is written
out as before. ``renamed`` makes the same edits from the text alone, for a conversion known to be a
rename, when the text shows the document would load and carries no such annotation yet.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from argocd_lifecycle.model import Annotation
from argocd_lifecycle.plugin.stream.doc_text import FLOW_MAPPING, INDENTED, NOTHING, VALUE
from argocd_lifecycle.yaml import kube_yaml, yamlio

_API_LINE = re.compile(r"^apiVersion:(.*)$", re.M)
_METADATA_LINE = re.compile(r"^metadata:(.*)$", re.M)
_NEXT_COL0 = re.compile(r"\n[^ \t\n#]")
#: values written plain here: read back as these very strings by Kubernetes and by YAML 1.1
_SAFE_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./-]*")
_KEY = Annotation.REWRITTEN_FROM
_RawParser: Any = getattr(getattr(yaml, "cyaml", None), "CParser", None)
_GAP = r"(?:[ \t\n]++|#[^\n]*+)*+"
#: where loading might fail although the stream parses (tags, anchors, aliases and deep nesting are
#: already ruled out for a document identified from its lines, merge keys are looked for apart): a
#: mapping key that is a collection (unhashable): ``[a]: b``, ``{[a]}`` or ``{a: 1, {b: 2}: 3}`` in flow
#: mappings, ``? x``. Conservative: the same characters in a scalar only send the document to the loader.
_COLLECTION_KEYS = (
    re.compile(rf"[\]}}]{_GAP}:"),
    re.compile(rf"[{{,]{_GAP}[\[{{]"),
    re.compile(r"(?:^|(?<=[ \t\n\[\]{},:]))\?"),
)


def _only_api_and_annotation(obj: Any, new: Any) -> tuple[str, str] | None:
    """(new apiVersion, annotation value) when ``new`` is ``obj`` with a new apiVersion and the
    rewritten-from annotation added, and nothing else."""
    if not isinstance(obj, dict) or not isinstance(new, dict) or obj.keys() != new.keys():
        return None
    meta, new_meta = obj.get("metadata"), new.get("metadata")
    if not isinstance(meta, dict) or not isinstance(new_meta, dict):
        return None
    if any(new[k] is not v and new[k] != v for k, v in obj.items() if k not in ("apiVersion", "metadata")):
        return None
    if any(new_meta.get(k) is not v and new_meta.get(k) != v for k, v in meta.items() if k != "annotations"):
        return None
    old = meta.get("annotations") or {}
    added = new_meta.get("annotations")
    if not isinstance(old, dict) or not isinstance(added, dict) or _KEY in old:
        return None
    if set(new_meta) != set(meta) | {"annotations"} or added != {**old, _KEY: added.get(_KEY)}:
        return None
    api, value = new.get("apiVersion"), added.get(_KEY)
    if not all(isinstance(v, str) and _plain(v) for v in (api, value)):
        return None
    return api, value  # type: ignore[return-value]


def _with_api(text: str, api: str) -> str | None:
    m = _API_LINE.search(text)
    value = VALUE.match(m.group(1)) if m else None
    if m is None or value is None:
        return None
    plain, single, double = value.span(1), value.span(2), value.span(3)
    if plain[0] >= 0:
        start, end = plain
    elif single[0] >= 0 or double[0] >= 0:
        start, end = single if single[0] >= 0 else double
        start, end = start - 1, end + 1  # the quotes
    else:
        return None
    at = m.start(1)
    return text[: at + start] + api + text[at + end :]


def _with_annotation(text: str, value: str) -> str | None:
    m = _METADATA_LINE.search(text)
    if m is None:
        return None
    entry = f"{_KEY}: {value}"
    rest = m.group(1)
    if rest and not NOTHING.match(rest):
        flow = FLOW_MAPPING.match(rest)
        if flow is None:
            return None
        # ``{name: a}`` -> ``{name: a, annotations: {key: value}}`` (accepted flow metadata has none)
        inner_end = flow.end(1) if flow.group(1) else rest.index("{") + 1
        at = m.start(1) + inner_end
        return text[:at] + (", " if flow.group(1) else "") + f"annotations: {{{entry}}}" + text[at:]
    t = "\n" + text  # the block below ``metadata:`` (offsets in t are one past those in text)
    start = m.end() + 1
    nxt = _NEXT_COL0.search(t, start)
    end = nxt.start() if nxt else len(t)
    lines = list(INDENTED.finditer(t, start, end))
    if not lines:
        return None
    indent = len(lines[0].group(1))
    for i, line in enumerate(lines):
        if len(line.group(1)) != indent or line.group(2) != "annotations":
            continue
        if not NOTHING.match(line.group(3)):
            return None  # a flow mapping of annotations: written out instead
        child = lines[i + 1] if i + 1 < len(lines) else None
        width = len(child.group(1)) if child is not None and len(child.group(1)) > indent else indent + 2
        at = line.end() - 1
        return text[:at] + "\n" + " " * width + entry + text[at:]
    at = m.end()
    return text[:at] + "\n" + " " * indent + "annotations:\n" + " " * (indent + 2) + entry + text[at:]


def _plain(value: str) -> bool:
    return _SAFE_PLAIN.fullmatch(value) is not None and kube_yaml.is_plain_string(value)


def loads_plainly(text: str) -> bool:
    """Whether a document identified from its lines (no aliases, tags or deep nesting) surely loads,
    and every key in it is spelled as it reads: no merge or collection keys, no escapes, within the
    size limit. Then a field name absent from the text is absent from the object."""
    if len(text) > yamlio.DEFAULT_LIMITS.max_expanded_bytes or "\\" in text or "<<" in text:
        return False
    closing, opening, question = _COLLECTION_KEYS  # one pattern each: faster than their alternation
    return not (closing.search(text) or opening.search(text) or ("?" in text and question.search(text)))


def renamed(text: str, old: str, new: str) -> str | None:
    """``text`` (a document identified from its lines, ``loads_plainly``) as ``edited`` writes it once
    loaded and renamed from ``old`` to ``new``, when it has no rewritten-from annotation yet. None: load
    it and let ``edited`` decide."""
    if _KEY in text or not (_plain(old) and _plain(new)):
        return None
    with_api = _with_api(text, new)
    return None if with_api is None else _with_annotation(with_api, old)


def edited(text: str, obj: Any, new: Any) -> str | None:
    """``text`` (a document identified from its lines, loading as ``obj``) edited to load as ``new``;
    None when the change is more than the apiVersion and the rewritten-from annotation."""
    change = _only_api_and_annotation(obj, new)
    if change is None:
        return None
    with_api = _with_api(text, change[0])
    return None if with_api is None else _with_annotation(with_api, change[1])


_COL0_LINE = re.compile(r"^[^ \t\n#]", re.M)
#: a column-0 line of a dedented block that might be a key other than a plain one, or a marker
_ODD_COL0 = re.compile(r"^(?:[\"'?%]|---|\.\.\.)", re.M)
_field_lines: dict[str, re.Pattern[str]] = {}


def has_value(text: str, top: str, key: str) -> bool:
    """Whether ``top`` (a column-0 key of a document identified from its lines, ``loads_plainly``) is a
    block mapping holding ``key`` once, with a value that is not null. Proved like the column-0 keys
    (plugin/stream/doc_text.py): the block is shifted to column 0, a ``---`` line goes before the key's line,
    and libyaml must parse that, so the line is a key of the block and not inside a scalar or a flow.
    False when that cannot be settled."""
    m = _key_line(top).search(text)
    if m is None or not NOTHING.match(m.group(1)):
        return False
    start = m.end() + 1
    nxt = _COL0_LINE.search(text, start)
    lines = text[start : nxt.start() if nxt else len(text)].split("\n")
    first = next((line for line in lines if line.strip(" ") and not line.lstrip(" ").startswith("#")), None)
    width = len(first) - len(first.lstrip(" ")) if first else 0
    if width == 0 or any(line[:width].strip(" ") for line in lines):
        return False  # nothing below, or a line (a comment too) less indented than the block
    block = "\n".join(line[width:] for line in lines)
    found = list(_key_line(key).finditer(block))
    if len(found) != 1 or _ODD_COL0.search(block):
        return False  # given twice (the last wins), or maybe spelled otherwise too
    line = found[0]
    rest = line.group(1)
    if NOTHING.match(rest):
        after = _COL0_LINE.search(block, line.end() + 1)
        deeper = block[line.end() : after.start() if after else len(block)]
        if not any(s.strip(" \t") and not s.lstrip(" \t").startswith("#") for s in deeper.split("\n")):
            return False  # null
    elif not rest.lstrip(" \t").startswith(("{", "[")):
        value = VALUE.match(rest)
        if value is None or (value.group(1) is not None and kube_yaml.plain_tag(value.group(1)) == kube_yaml.NULL):
            return False  # null, or a scalar not read here
    proof = block[: line.start()] + "---\n" + block[line.start() :]
    return _RawParser is not None and _parses(proof)


def _key_line(key: str) -> re.Pattern[str]:
    """Lines at column 0 holding ``key:`` (a plain key may have blanks before its colon)."""
    pattern = _field_lines.get(key)
    if pattern is None:
        pattern = _field_lines[key] = re.compile(rf"^{re.escape(key)}[ \t]*:(.*)$", re.M)
    return pattern


def _parses(text: str) -> bool:
    try:
        _RawParser(text).raw_parse()
    except Exception:  # any refusal is libyaml's: not settled
        return False
    return True
