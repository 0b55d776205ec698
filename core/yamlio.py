"""YAML reading and writing through libyaml's C loader and dumper (pure Python as a warned fallback)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from argocd_lifecycle import kube_yaml

try:
    _Loader: type[Any] = yaml.CSafeLoader
    _Dumper: type[Any] = yaml.CSafeDumper
    HAVE_LIBYAML = True
except AttributeError:  # pragma: no cover - depends on how pyyaml was built
    _Loader, _Dumper = yaml.SafeLoader, yaml.SafeDumper
    HAVE_LIBYAML = False


_STR, _INT, _BOOL, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("str", "int", "bool", "null"))
_MAP, _SEQ, _MERGE = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:merge"
class _FastLoader(kube_yaml.LoadResolver, _Loader):  # type: ignore[misc]
    """The safe loader with a direct path for plain maps, lists and strings (the bulk of manifests).

    Scalars mean what they mean to Kubernetes (core/kube_yaml.py: ``12:30`` and timestamps are
    strings, ``y`` and ``1e3`` are not); anything else (merge keys, explicit tags) goes through the
    safe constructor.
    """

    def construct_document(self, node: Any) -> Any:
        memo: dict[int, Any] = {}  # aliases share one object, as with the stock constructor
        slow = super().construct_object

        def build(n: Any) -> Any:
            cls = n.__class__
            if cls is ScalarNode:
                return n.value if n.tag == _STR else slow(n, deep=True)
            ident = id(n)
            if ident in memo:
                return memo[ident]
            if cls is MappingNode and n.tag == _MAP and not any(k.tag == _MERGE for k, _ in n.value):
                out: dict[Any, Any] = {}
                memo[ident] = out
                try:
                    for k, v in n.value:
                        out[build(k)] = build(v)
                except TypeError:  # an unhashable key: let the stock constructor raise its own error
                    memo[ident] = slow(n, deep=True)
                    return memo[ident]
                return out
            if cls is SequenceNode and n.tag == _SEQ:
                items: list[Any] = []
                memo[ident] = items
                items.extend(build(x) for x in n.value)
                return items
            memo[ident] = slow(n, deep=True)
            return memo[ident]

        try:
            return build(node)
        finally:
            self.constructed_objects: dict[Any, Any] = {}
            self.recursive_objects: dict[Any, Any] = {}


# Kubernetes' scalar semantics (sigs.k8s.io/yaml), not PyYAML's YAML 1.1 resolver: core/kube_yaml.py
kube_yaml.install_constructors(_FastLoader)


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


def load_all(text: str) -> Iterator[Any]:
    """Yield each document of a YAML stream. Raises yaml.YAMLError with marks on bad syntax."""
    _warn_once()
    return yaml.load_all(text, Loader=_FastLoader)


def load(text: str) -> Any:
    _warn_once()
    return yaml.load(text, Loader=_FastLoader)  # noqa: S506 - a safe loader class


def syntax_error(where: str, exc: yaml.YAMLError, *, context: bool = True) -> str:
    """``where:line:column: YAML syntax error: what`` for a parse error (without a position when the
    error has none). ``context`` adds the parser's "while parsing ..." clause and its position as a
    fallback; scan and convert print the bare problem, one short line per bad file."""
    mark = getattr(exc, "problem_mark", None) or (getattr(exc, "context_mark", None) if context else None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    clause = getattr(exc, "context", None) if context else None
    what = f"{clause}: {problem}" if clause else str(problem)
    at = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
    return f"{where}{at}: YAML syntax error: {what}"


def dump(obj: Any) -> str:
    """Block-style YAML with keys in insertion order, so output follows the source order."""
    _warn_once()
    out: str = yaml.dump(
        obj,
        Dumper=_NoAliasDumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=1 << 30,
    )
    return out


def dump_all(objs: list[Any]) -> str:
    """A multi-document stream: documents separated by ``---``."""
    _warn_once()
    out: str = yaml.dump_all(
        objs,
        Dumper=_NoAliasDumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        explicit_start=True,
        width=1 << 30,
    )
    return out
