"""YAML reading and writing through libyaml's C loader and dumper (pure Python as a warned fallback).

Every stream is read under one set of ``Limits`` (nesting depth, alias count, expanded size, file size):
YAML from a repository is hostile input, and an alias bomb is a few lines of text.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.yaml import kube_yaml

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Bounds on one YAML stream. Depth is checked on every load; aliases and the expanded size only
    when the text can hold aliases (it has both ``&`` and ``*``), so plain manifests pay nothing."""

    #: nested mappings/sequences; Kubernetes objects (CRD schemas included) stay far below
    max_depth: int = 128
    #: alias uses in one stream
    max_aliases: int = 10_000
    #: size of the stream with every alias written out (an alias to a 1 MiB string counts 1 MiB)
    max_expanded_bytes: int = 64 * MIB
    #: size of a file read with ``read_file``
    max_file_bytes: int = 10 * MIB


DEFAULT_LIMITS = Limits()


def format_size(size: int) -> str:
    """``64 MiB``, ``100 KiB``, ``1.5 MiB``, ``300 bytes``: sizes in messages."""
    if size >= MIB:
        return f"{size // MIB} MiB" if size % MIB == 0 else f"{size / MIB:.1f} MiB"
    if size >= 1024:
        return f"{size // 1024} KiB" if size % 1024 == 0 else f"{size / 1024:.1f} KiB"
    return f"{size} bytes"


class LimitError(yaml.MarkedYAMLError):
    """A stream broke one of the ``Limits``: refused, not a syntax error."""


try:
    _Loader: type[Any] = yaml.CSafeLoader
    _Dumper: type[Any] = yaml.CSafeDumper
    HAVE_LIBYAML = True
except AttributeError:  # pragma: no cover - depends on how pyyaml was built
    _Loader, _Dumper = yaml.SafeLoader, yaml.SafeDumper
    HAVE_LIBYAML = False


_STR, _INT, _BOOL, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("str", "int", "bool", "null"))
_MAP, _SEQ, _MERGE = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:merge"


def _text_bytes(value: str) -> int:
    return len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))


class _Measure:
    """Alias uses, depth and expanded bytes of one node graph, each shared node sized once."""

    def __init__(self, limits: Limits, aliases: int) -> None:
        self.limits = limits
        self.aliases = aliases
        self._sizes: dict[int, int] = {}
        self._open: set[int] = set()

    def size(self, node: Node, depth: int) -> int:
        ident = id(node)
        known = self._sizes.get(ident)
        if known is not None:
            self.aliases += 1
            if self.aliases > self.limits.max_aliases:
                raise LimitError(None, None, f"more than {self.limits.max_aliases:,} aliases", node.start_mark)
            return known
        if ident in self._open:
            raise LimitError(None, None, "an alias refers to a node that contains it", node.start_mark)
        if depth > self.limits.max_depth:
            raise LimitError(None, None, f"nested deeper than {self.limits.max_depth} levels", node.start_mark)
        if isinstance(node, ScalarNode):
            total = _text_bytes(node.value) + 2
        else:
            self._open.add(ident)
            total = 2
            children = [c for kv in node.value for c in kv] if isinstance(node, MappingNode) else node.value
            for child in children:
                total += self.size(child, depth + 1)
                if total > self.limits.max_expanded_bytes:
                    break
            self._open.discard(ident)
        if total > self.limits.max_expanded_bytes:
            raise LimitError(
                None,
                None,
                f"expands to more than {format_size(self.limits.max_expanded_bytes)} (aliases written out)",
                node.start_mark,
            )
        self._sizes[ident] = total
        return total


class _FastLoader(kube_yaml.LoadResolver, _Loader):  # type: ignore[misc]
    """The safe loader with a direct path for plain maps, lists and strings (the bulk of manifests),
    bounded by ``limits`` (set by ``open_loader``).

    Scalars mean what they mean to Kubernetes (core/yaml/kube_yaml.py: ``12:30`` and timestamps are
    strings, ``y`` and ``1e3`` are not); anything else (merge keys, explicit tags) goes through the
    safe constructor.
    """

    limits: Limits = DEFAULT_LIMITS
    #: the text can hold aliases: measure each document before building it
    measure: bool = False
    aliases: int = 0
    #: the stream's size with aliases written out (its length when it has none)
    expanded_bytes: int = 0

    def prepare(self, node: Node) -> Node:
        """Hook for loaders that rewrite the node graph before it is built (no-op here)."""
        return node

    def construct_document(self, node: Any) -> Any:
        limits = self.limits
        if self.measure:
            measure = _Measure(limits, self.aliases)
            self.expanded_bytes += measure.size(node, 1)
            self.aliases = measure.aliases
            if self.expanded_bytes > limits.max_expanded_bytes:
                raise LimitError(None, None, f"expands to more than {format_size(limits.max_expanded_bytes)}", None)
        node = self.prepare(node)
        memo: dict[int, Any] = {}  # aliases share one object, as with the stock constructor
        stock = super().construct_object
        max_depth = limits.max_depth

        def slow(n: Any) -> Any:
            try:
                return stock(n, deep=True)
            except (ValueError, OverflowError) as exc:  # an int past the digit limit, a 30th of February
                raise ConstructorError(None, None, f"cannot build a value: {exc}", n.start_mark) from exc

        def build(n: Any, depth: int) -> Any:
            cls = n.__class__
            if cls is ScalarNode:
                return n.value if n.tag == _STR else slow(n)
            ident = id(n)
            if ident in memo:
                return memo[ident]
            if depth > max_depth:
                raise LimitError(None, None, f"nested deeper than {max_depth} levels", n.start_mark)
            if cls is MappingNode and n.tag == _MAP and not any(k.tag == _MERGE for k, _ in n.value):
                out: dict[Any, Any] = {}
                memo[ident] = out
                try:
                    for k, v in n.value:
                        out[build(k, depth + 1)] = build(v, depth + 1)
                except TypeError:  # an unhashable key: let the stock constructor raise its own error
                    memo[ident] = slow(n)
                    return memo[ident]
                return out
            if cls is SequenceNode and n.tag == _SEQ:
                items: list[Any] = []
                memo[ident] = items
                items.extend(build(x, depth + 1) for x in n.value)
                return items
            memo[ident] = slow(n)
            return memo[ident]

        try:
            return build(node, 1)
        except RecursionError as exc:  # merge keys and tags go through the stock, recursive constructor
            raise LimitError(None, None, f"nested deeper than {max_depth} levels", None) from exc
        finally:
            self.constructed_objects: dict[Any, Any] = {}
            self.recursive_objects: dict[Any, Any] = {}


# Kubernetes' scalar semantics (sigs.k8s.io/yaml), not PyYAML's YAML 1.1 resolver: core/yaml/kube_yaml.py
kube_yaml.install_constructors(_FastLoader)

#: the loader to subclass for a ``prepare`` hook
BoundedLoader = _FastLoader


class _NoAliasDumper(kube_yaml.DumpResolver, _Dumper):  # type: ignore[misc]
    """Write shared objects out in full (Kubernetes tooling expects plain documents, not anchors),
    with a direct path for the plain types; the rest goes through the safe representer. Strings that
    Kubernetes' decoder would read as anything else are quoted (``kube_yaml.DumpResolver``)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def represent_data(self, data: Any) -> Any:
        cls = data.__class__
        if cls is str:
            return ScalarNode(_STR, data)
        if cls is dict:
            rep = self.represent_data
            return MappingNode(_MAP, [(rep(k), rep(v)) for k, v in data.items()], flow_style=False)
        if cls is list:
            return SequenceNode(_SEQ, [self.represent_data(x) for x in data], flow_style=False)
        if cls is bool:
            return ScalarNode(_BOOL, "true" if data else "false")
        if cls is int:
            return ScalarNode(_INT, str(data))
        if data is None:
            return ScalarNode(_NULL, "null")
        return super().represent_data(data)


_warned: list[bool] = []


def _warn_once() -> None:
    if not HAVE_LIBYAML and not _warned:
        _warned.append(True)
        print("warning: libyaml is missing; YAML is parsed in pure Python (slower)", file=sys.stderr)


def open_loader(text: str, limits: Limits = DEFAULT_LIMITS, loader: type[_FastLoader] = _FastLoader) -> _FastLoader:
    """A loader for ``text`` under ``limits``; the caller disposes of it."""
    _warn_once()
    if len(text) > limits.max_expanded_bytes:
        raise LimitError(None, None, f"the stream is over {format_size(limits.max_expanded_bytes)}", None)
    opened = loader(text)
    opened.limits = limits
    opened.measure = "&" in text and "*" in text
    opened.expanded_bytes = 0 if opened.measure else len(text)
    return opened


def iter_documents(opened: _FastLoader) -> Iterator[Any]:
    try:
        while opened.check_data():
            yield opened.get_data()
    except (ValueError, OverflowError) as exc:  # from resolving a scalar: one YAML error, like the rest
        raise ConstructorError(None, None, f"cannot read a value: {exc}", None) from exc
    finally:
        opened.dispose()


def load_all(text: str, limits: Limits = DEFAULT_LIMITS) -> Iterator[Any]:
    """Yield each document of a YAML stream. Raises yaml.YAMLError with marks on bad syntax, and
    LimitError (one too) when the stream breaks ``limits``."""
    return iter_documents(open_loader(text, limits))


def load(text: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """The single document of ``text`` (None when empty); more than one is an error, as in PyYAML."""
    opened = open_loader(text, limits)
    try:
        return opened.get_single_data()
    except (ValueError, OverflowError) as exc:
        raise ConstructorError(None, None, f"cannot read a value: {exc}", None) from exc
    finally:
        opened.dispose()


class _Unreadable(Exception):
    """Why a file's text could not be had: ``refused`` for what the limits or its type refuse."""

    def __init__(self, reason: str, *, refused: bool = False, decoding: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.refused, self.decoding = reason, refused, decoding


def _file_text(path: Path, limits: Limits) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _Unreadable(exc.strerror or type(exc).__name__) from exc
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _Unreadable("not a regular file", refused=True)
        limit = limits.max_file_bytes
        data = fh.read(limit + 1)
    if len(data) > limit or info.st_size > limit:
        size = max(len(data), info.st_size)
        raise _Unreadable(f"file is {size / MIB:.1f} MiB, over the {format_size(limit)} limit", refused=True)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Unreadable(f"not UTF-8 text (byte {exc.start})", decoding=True) from exc


def read_file(path: Path, where: str, limits: Limits = DEFAULT_LIMITS) -> str:
    """The UTF-8 text of a regular file of at most ``limits.max_file_bytes`` (``where`` names it in
    errors). Opened without blocking, so a FIFO in a repository cannot hang the reader."""
    try:
        return _file_text(path, limits)
    except _Unreadable as exc:
        if exc.refused:
            raise ConfigError(f"{where}: refused: {exc.reason}") from exc
        raise ConfigError(
            f"{where}: {exc.reason}" if exc.decoding else f"{where}: cannot be read ({exc.reason})"
        ) from exc


def load_config(path: Path, what: str, *, where: str | None = None, limits: Limits = DEFAULT_LIMITS) -> Any:
    """The one loader of a configuration file (``what``: "receiver config", "the policy file"): read as
    ``read_file`` reads (a regular file under the size limit, UTF-8), parsed under ``limits``. Every
    problem is one ConfigError naming the file (``where``, default the path) and never quoting its text."""
    try:
        text = _file_text(path, limits)
    except _Unreadable as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.reason}") from exc
    try:
        return load(text, limits)
    except (yaml.YAMLError, ValueError, OverflowError) as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ConfigError(f"{where or path}: not valid YAML ({type(exc).__name__}{at})") from exc


def syntax_error(where: str, exc: yaml.YAMLError, *, context: bool = True) -> str:
    """``where:line:column: YAML syntax error: what`` for a parse error (without a position when the
    error has none). ``context`` adds the parser's "while parsing ..." clause and its position as a
    fallback; scan and convert print the bare problem, one short line per bad file."""
    mark = getattr(exc, "problem_mark", None) or (getattr(exc, "context_mark", None) if context else None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    clause = getattr(exc, "context", None) if context else None
    what = f"{clause}: {problem}" if clause else str(problem)
    at = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
    kind = "refused" if isinstance(exc, LimitError) else "YAML syntax error"
    return f"{where}{at}: {kind}: {what}"


#: how both dumps write: block style, keys in insertion order (output follows the source order), no
#: aliases, no line folding
_DUMP_OPTIONS: dict[str, Any] = {
    "Dumper": _NoAliasDumper,
    "sort_keys": False,
    "default_flow_style": False,
    "allow_unicode": True,
    "width": 1 << 30,
}


def dump(obj: Any) -> str:
    """Block-style YAML with keys in insertion order, so output follows the source order."""
    _warn_once()
    out: str = yaml.dump(obj, **_DUMP_OPTIONS)
    return out


def dump_all(objs: list[Any]) -> str:
    """A multi-document stream: documents separated by ``---``."""
    _warn_once()
    out: str = yaml.dump_all(objs, explicit_start=True, **_DUMP_OPTIONS)
    return out
