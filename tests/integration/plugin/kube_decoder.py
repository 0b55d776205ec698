"""What Kubernetes reads from a YAML stream, through the yamlcheck harness (sigs.k8s.io/yaml at Argo CD's
pin, Argo CD's own document splitting), in a form comparable with what core/yamlio gives us."""

from __future__ import annotations

import json
import math
import subprocess
from dataclasses import dataclass
from typing import Any

from tests.conftest import require_tool

#: a comparable value: ("str", s), ("int", n), ("float", x or "nan"), ("bool", b), ("null",),
#: ("seq", (...)), ("map", ((key, value), ...)) with pairs sorted: Go maps have no order
Typed = tuple[Any, ...]


def _float(value: float) -> Typed:
    return ("float", "nan") if math.isnan(value) else ("float", value)


def _map(pairs: list[tuple[Typed, Typed]]) -> Typed:
    return ("map", tuple(sorted(pairs, key=repr)))


def from_go(tree: list[Any]) -> Typed:
    kind = tree[0]
    if kind == "null":
        return ("null",)
    if kind in ("str", "bool"):
        return (kind, tree[1])
    if kind == "int":
        return ("int", int(tree[1]))
    if kind == "float":
        return _float(float(tree[1]))
    if kind == "seq":
        return ("seq", tuple(from_go(item) for item in tree[1]))
    return _map([(from_go(k), from_go(v)) for k, v in tree[1]])


def from_python(value: Any) -> Typed:
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, list):
        return ("seq", tuple(from_python(item) for item in value))
    if isinstance(value, dict):
        return _map([(from_python(k), from_python(v)) for k, v in value.items()])
    raise TypeError(f"not a YAML value: {type(value).__name__}")


@dataclass(frozen=True)
class Reading:
    #: each non-empty document as go-yaml decodes it
    documents: list[Typed]
    #: each document as JSON (what Argo CD hands on), None where it cannot become JSON
    json: list[Any]
    #: Argo CD's verdict on the whole stream: None when it takes it, else its error
    error: str | None


def kubernetes_reads(text: str) -> Reading:
    proc = subprocess.run(
        [str(require_tool("yamlcheck"))], input=text, capture_output=True, text=True, timeout=60, check=True
    )
    # not splitlines(): it also splits on the separators (\x1c, \x85, ...) a string may hold
    lines = [json.loads(line) for line in proc.stdout.split("\n") if line]
    verdict = lines[-1]
    docs = lines[:-1]
    return Reading(
        [from_go(d["tree"]) for d in docs],
        [d.get("json") for d in docs],
        verdict.get("error"),
    )
