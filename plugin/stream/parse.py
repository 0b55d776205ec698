"""Turn rendered text into Manifests, refusing what Argo CD would choke on, with file:line:column.

Every stream is read under the settings' ``Limits`` (depth, aliases, expanded size), and a ``Budget``
adds the streams up, so many files below the limit cannot add up to an unbounded render either.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin import masking
from argocd_lifecycle.plugin.diagnostics import json_syntax_error
from argocd_lifecycle.plugin.stream.manifest import Manifest
from argocd_lifecycle.yaml import yamlio


@dataclass
class Budget:
    """Bytes every stream of one render may add up to (the output cap, maxOutputBytes)."""

    limit: int
    used: int = 0

    def spend(self, size: int, where: str) -> None:
        self.used += size
        if self.used > self.limit:
            raise RenderError(
                f"{where}: refused: the render's YAML adds up to more than {yamlio.format_size(self.limit)} "
                "(parameter maxOutputBytes)"
            )


#: what a YAML problem quotes (an alias, anchor or tag name, a token), long enough to be a secret
_QUOTED = re.compile(f"'[^']{{{masking.MIN_SECRET},}}'|\"[^\"]{{{masking.MIN_SECRET},}}\"")


def syntax_error(where: str, exc: yaml.YAMLError, text: str) -> str:
    """``where:line:column: YAML syntax error: problem`` for ``text``; inside a document that says it
    is a Secret, what the problem quotes is hidden: a name the parser quotes there (``*name``,
    ``!name``) is the Secret's own text, and the Secret's values were never read to be masked."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is not None and masking.secret_document_at(text, mark.line):
        # the exception itself too: it is chained to the error, and shown with ARGOCD_LIFECYCLE_DEBUG
        for attr in ("problem", "context"):
            if isinstance(getattr(exc, attr, None), str):
                setattr(exc, attr, _QUOTED.sub("'***'", getattr(exc, attr)))
    return yamlio.syntax_error(where, exc)


def _json_too_deep(doc: Any, max_depth: int) -> bool:
    stack = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        if depth > max_depth:
            return True
        stack.extend((c, depth + 1) for c in children)
    return False


def _flatten_lists(obj: Any) -> list[Any]:
    """``kind: List`` objects are flattened, as Argo CD's repo-server does."""
    if isinstance(obj, dict) and str(obj.get("kind", "")).endswith("List") and isinstance(obj.get("items"), list):
        return list(obj["items"])
    return [obj]


def load_documents(
    text: str,
    source: str,
    *,
    limits: yamlio.Limits = yamlio.DEFAULT_LIMITS,
    json_file: bool = False,
    budget: Budget | None = None,
    loader: type[yamlio.BoundedLoader] = yamlio.BoundedLoader,
) -> list[Any]:
    """Parse a YAML stream (or one JSON document) into its non-empty documents."""
    if json_file:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RenderError(json_syntax_error(source, exc)) from exc
        except RecursionError as exc:
            raise RenderError(f"{source}: refused: JSON nested deeper than {limits.max_depth} levels") from exc
        if _json_too_deep(doc, limits.max_depth):
            raise RenderError(f"{source}: refused: JSON nested deeper than {limits.max_depth} levels")
        if budget is not None:
            budget.spend(len(text), source)
        return [doc]
    try:
        opened = yamlio.open_loader(text, limits, loader)
        docs = [d for d in yamlio.iter_documents(opened) if d is not None]
    except yaml.YAMLError as exc:
        raise RenderError(syntax_error(source, exc, text)) from exc
    if budget is not None:
        budget.spend(opened.expanded_bytes, source)
    return docs


def _metadata_problem(meta: dict[str, Any]) -> str | None:
    """Shapes later steps rely on (a list of annotations would otherwise fail deep in a transform)."""
    for key in ("name", "generateName", "namespace"):
        if meta.get(key) is not None and not isinstance(meta[key], str):
            return f"has metadata.{key} of type {type(meta[key]).__name__}, not a string"
    for key in ("labels", "annotations"):
        if meta.get(key) is not None and not isinstance(meta[key], dict):
            return f"has metadata.{key} of type {type(meta[key]).__name__}, not a mapping"
    return None


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
            shape = None if missing else _metadata_problem(meta)  # type: ignore[arg-type]
            if missing:
                problems.append(f"{where}: object lacks {', '.join(missing)}")
            elif shape:
                problems.append(f"{where}: object {shape}")
            else:
                out.append(Manifest(obj, source, index))
    if problems:
        raise RenderError(problems[0], problems=problems)
    return out


def parse_stream(
    text: str,
    source: str,
    *,
    limits: yamlio.Limits = yamlio.DEFAULT_LIMITS,
    json_file: bool = False,
    budget: Budget | None = None,
) -> list[Manifest]:
    return to_manifests(load_documents(text, source, limits=limits, json_file=json_file, budget=budget), source)
