"""Manifest files named on the command line: files as given, folders walked (sorted, hidden skipped)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from argocd_lifecycle.errors import ConfigError, LifecycleError, UsageError
from argocd_lifecycle.plugin.diagnostics import json_syntax_error
from argocd_lifecycle.plugin.stream.documents import DocInfo, index_documents
from argocd_lifecycle.plugin.walk import manifest_files
from argocd_lifecycle.yaml import yamlio

STDIN = "-"


@dataclass(frozen=True)
class Source:
    label: str
    path: Path | None  # None: standard input


class SourceError(LifecycleError):
    """A file that cannot be read or parsed; scan/convert report it and exit 1."""


def list_sources(paths: list[str]) -> list[Source]:
    """What the command line names: ``-`` is stdin, files are taken as given, folders are walked."""
    out: list[Source] = []
    for raw in paths:
        if raw == STDIN:
            out.append(Source("<stdin>", None))
            continue
        path = Path(raw)
        if path.is_dir():
            out.extend(Source(p.as_posix(), p) for p in sorted(manifest_files(path)))
        elif path.is_file():
            out.append(Source(path.as_posix(), path))
        else:
            raise UsageError(f"{raw}: no such file or folder")
    return out


def read(source: Source, limits: yamlio.Limits = yamlio.DEFAULT_LIMITS) -> str:
    """The text of a source, bounded as the plugin bounds a file (a regular file of at most
    ``limits.max_file_bytes``, opened without blocking: a FIFO in a repository cannot hang a scan)."""
    if source.path is None:
        text = sys.stdin.read(limits.max_file_bytes + 1)
        if len(text) > limits.max_file_bytes:
            raise SourceError(f"{source.label}: refused: over the {yamlio.format_size(limits.max_file_bytes)} limit")
        return text
    try:
        return yamlio.read_file(source.path, source.label, limits)
    except ConfigError as exc:
        raise SourceError(exc.message) from exc


def is_json(source: Source) -> bool:
    return source.path is not None and source.path.suffix == ".json"


def index(source: Source, text: str) -> list[DocInfo]:
    """Documents of a YAML stream (a JSON file is one inexact document spanning the file)."""
    if is_json(source):
        return [DocInfo(0, 0, len(text), exact=False)]
    try:
        return index_documents(text)
    except yaml.YAMLError as exc:
        raise SourceError(yamlio.syntax_error(source.label, exc, context=False)) from exc


def load(source: Source, text: str, doc: DocInfo) -> Any:
    """The full document (for inexact ones and the ones being rewritten)."""
    if is_json(source):
        return _load_json(source, text)
    try:
        return yamlio.load(doc.text(text))
    except yaml.YAMLError as exc:
        raise SourceError(yamlio.syntax_error(f"{source.label}#{doc.index}", exc, context=False)) from exc


def _load_json(source: Source, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(json_syntax_error(source.label, exc)) from exc
