"""Turn rendered text into Manifests, refusing what Argo CD would choke on, with file:line:column."""

from __future__ import annotations

import json
from typing import Any

import yaml

from argocd_lifecycle import yamlio
from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.manifest import Manifest

#: a YAML alias bomb expands far beyond its text; past this many nodes a document is refused
MAX_EXPANDED_NODES = 2_000_000


def _expanded_size(doc: Any, budget: int) -> int:
    """Count nodes as a consumer walking the document would see them (aliases counted each time)."""
    count = 0
    stack = [doc]
    while stack:
        node = stack.pop()
        count += 1
        if count > budget:
            return count
        if isinstance(node, dict):
            stack.extend(node.values())
            stack.extend(node.keys())
        elif isinstance(node, list):
            stack.extend(node)
    return count


def json_syntax_error(where: str, exc: json.JSONDecodeError) -> str:
    return f"{where}:{exc.lineno}:{exc.colno}: JSON syntax error: {exc.msg}"


def _flatten_lists(obj: Any) -> list[Any]:
    """``kind: List`` objects are flattened, as Argo CD's repo-server does."""
    if isinstance(obj, dict) and str(obj.get("kind", "")).endswith("List") and isinstance(obj.get("items"), list):
        return list(obj["items"])
    return [obj]


def load_documents(text: str, source: str, *, json_file: bool = False) -> list[Any]:
    """Parse a YAML stream (or one JSON document) into its non-empty documents."""
    if json_file:
        try:
            return [json.loads(text)]
        except json.JSONDecodeError as exc:
            raise RenderError(json_syntax_error(source, exc)) from exc
    try:
        docs = [d for d in yamlio.load_all(text) if d is not None]
    except yaml.YAMLError as exc:
        raise RenderError(yamlio.syntax_error(source, exc)) from exc
    except RecursionError as exc:
        raise RenderError(f"{source}: YAML nesting is too deep") from exc
    if "*" in text and "&" in text:  # aliases present: make sure they do not explode
        for i, doc in enumerate(docs):
            if _expanded_size(doc, MAX_EXPANDED_NODES) > MAX_EXPANDED_NODES:
                raise RenderError(
                    f"{source}#{i}: refused: YAML aliases expand to more than {MAX_EXPANDED_NODES:,} nodes "
                    "(an alias bomb?)"
                )
    return docs


def to_manifests(docs: list[Any], source: str) -> list[Manifest]:
    """Check each document is a Kubernetes object; index numbers count documents in the source."""
    out: list[Manifest] = []
    problems: list[str] = []
    for index, doc in enumerate(docs):
        for obj in _flatten_lists(doc):
            where = f"{source}#{index}"
            if not isinstance(obj, dict):
                problems.append(f"{where}: document is a {type(obj).__name__}, not a Kubernetes object (mapping)")
                continue
            missing = [k for k in ("apiVersion", "kind") if not isinstance(obj.get(k), str) or not obj.get(k)]
            meta = obj.get("metadata")
            if not isinstance(meta, dict) or (not meta.get("name") and not meta.get("generateName")):
                missing.append("metadata.name")
            if missing:
                problems.append(f"{where}: object lacks {', '.join(missing)}")
                continue
            out.append(Manifest(obj, source, index))
    if problems:
        raise RenderError(problems[0], problems=problems)
    return out


def parse_stream(text: str, source: str, *, json_file: bool = False) -> list[Manifest]:
    return to_manifests(load_documents(text, source, json_file=json_file), source)
