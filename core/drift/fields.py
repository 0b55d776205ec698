"""``managedFields[].fieldsV1`` to field paths, and paths resolved against an object.

A fieldsV1 set is a tree of keys (sigs.k8s.io/structured-merge-diff): ``f:<name>`` a field of a map,
``k:<json object>`` a list item by its key fields, ``v:<json>`` a set item by its value, ``i:<n>`` a list
item by index, and ``.`` the node itself (its manager owns the node's presence). A leaf is ``{}``.

Paths name leaves, except a list item whose presence the manager owns (``.`` beside its fields): that
item is one path, since the manager added the whole item. The tree comes from an API server or a file,
so it is hostile: depth, paths and key sizes are bounded, and a key that does not parse is one
``FieldsError`` naming the problem, never the key's text past a short prefix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.errors import LifecycleError

#: deeper than any Kubernetes object (a Pod template in a CronJob is about 12 levels)
MAX_DEPTH = 48
#: paths one managedFields entry may yield
MAX_PATHS = 2000
#: a key's text (a ``k:`` of two fields is tens of bytes; annotation keys are at most 317)
MAX_KEY = 1024
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


class FieldsError(LifecycleError):
    """A fieldsV1 tree that cannot be read."""


@dataclass(frozen=True)
class Field:
    """A map's field: ``f:replicas``."""

    name: str

    def text(self) -> str:
        return f".{self.name}" if _NAME.fullmatch(self.name) else f"[{json.dumps(self.name)}]"


@dataclass(frozen=True)
class Key:
    """A list item named by its key fields: ``k:{"name":"web"}``; ``fields`` are (name, JSON value)."""

    fields: tuple[tuple[str, str], ...]

    def text(self) -> str:
        return "[" + ",".join(f"{name}={_scalar(raw)}" for name, raw in self.fields) + "]"

    def matches(self, item: Any) -> bool:
        if not isinstance(item, Mapping):
            return False
        return all(name in item and _same(item[name], json.loads(raw)) for name, raw in self.fields)


@dataclass(frozen=True)
class Value:
    """A set item named by its value: ``v:"finalizer.example.com"`` (JSON text)."""

    raw: str

    def text(self) -> str:
        return f"[={_scalar(self.raw)}]"

    def matches(self, item: Any) -> bool:
        return _same(item, json.loads(self.raw))


@dataclass(frozen=True)
class Index:
    """A list item by position: ``i:0``."""

    index: int

    def text(self) -> str:
        return f"[{self.index}]"


Segment = Field | Key | Value | Index
Path = tuple[Segment, ...]


def _same(a: Any, b: Any) -> bool:
    # JSON equality: 1 and 1.0 are one number, True is not 1
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)


def _scalar(raw: str) -> str:
    """A key's value as written in a path: strings bare when they are plain, else their JSON."""
    value = json.loads(raw)
    if isinstance(value, str) and value and all(c.isprintable() and c not in '[],="' for c in value):
        return value
    return raw


def render(path: Path) -> str:
    """``spec.template.spec.containers[name=web].env[name=LOG_LEVEL].value``."""
    return "".join(seg.text() for seg in path).lstrip(".")


def _shown(key: str) -> str:
    return json.dumps(key[:40] + ("..." if len(key) > 40 else ""))


def _segment(key: str) -> Segment:
    if len(key) > MAX_KEY:
        raise FieldsError(f"fieldsV1: a key longer than {MAX_KEY} characters")
    kind, _, rest = key.partition(":")
    if kind == "f" and rest:
        return Field(rest)
    if kind == "i" and rest.isdigit():
        return Index(int(rest))
    if kind in ("k", "v"):
        try:
            value = json.loads(rest)
        except (ValueError, RecursionError) as exc:
            raise FieldsError(f"fieldsV1: key {_shown(key)} does not hold JSON") from exc
        if kind == "v":
            return Value(json.dumps(value, sort_keys=True, separators=(",", ":")))
        if not isinstance(value, dict) or not value:
            raise FieldsError(f"fieldsV1: key {_shown(key)} should hold a JSON object")
        return Key(tuple(sorted((k, json.dumps(v, sort_keys=True, separators=(",", ":"))) for k, v in value.items())))
    raise FieldsError(f"fieldsV1: unknown key {_shown(key)} (expected f:, k:, v:, i: or .)")


def paths(tree: Any) -> tuple[Path, ...]:
    """Every path a fieldsV1 tree owns, in the tree's order."""
    if not isinstance(tree, Mapping):
        raise FieldsError("fieldsV1: not an object")
    found: list[Path] = []
    for path in _walk(tree, (), 0):
        found.append(path)
        if len(found) > MAX_PATHS:
            raise FieldsError(f"fieldsV1: more than {MAX_PATHS} fields")
    return tuple(found)


def _walk(node: Mapping[str, Any], prefix: Path, depth: int) -> Iterator[Path]:
    if depth > MAX_DEPTH:
        raise FieldsError(f"fieldsV1: nested deeper than {MAX_DEPTH} levels")
    for key, child in node.items():
        if key == ".":
            continue
        if not isinstance(key, str):
            raise FieldsError("fieldsV1: a key that is not a string")
        if not isinstance(child, Mapping):
            raise FieldsError(f"fieldsV1: the value of {_shown(key)} is not an object")
        segment = _segment(key)
        path = (*prefix, segment)
        whole_item = "." in child and not isinstance(segment, Field)
        if not child or whole_item or set(child) == {"."}:
            yield path
        else:
            yield from _walk(child, path, depth + 1)


_MISSING = object()


def resolve(obj: Any, path: Path) -> tuple[bool, Any]:
    """``(found, value)`` of ``path`` in a JSON object."""
    node = obj
    for segment in path:
        node = _step(node, segment)
        if node is _MISSING:
            return False, None
    return True, node


def _step(node: Any, segment: Segment) -> Any:
    if isinstance(segment, Field):
        return node.get(segment.name, _MISSING) if isinstance(node, Mapping) else _MISSING
    if not isinstance(node, list):
        return _MISSING
    if isinstance(segment, Index):
        return node[segment.index] if segment.index < len(node) else _MISSING
    return next((item for item in node if segment.matches(item)), _MISSING)
