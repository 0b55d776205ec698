"""``convert --in-place``: the converted files written back, each replaced atomically."""

from __future__ import annotations

from argocd_lifecycle.files import write_atomically
from argocd_lifecycle.plugin.rewrite.files.convert_files import Converted
from argocd_lifecycle.plugin.rewrite.files.sources import SourceError


def write_in_place(results: list[Converted]) -> int:
    """Replace each changed file atomically (temp file + rename); returns how many were written."""
    written = 0
    for result in results:
        path = result.source.path
        if not result.changed or path is None:
            continue
        try:
            write_atomically(path, result.text)
        except OSError as exc:
            raise SourceError(
                f"{result.source.label}: cannot be written ({exc.strerror or type(exc).__name__})"
            ) from exc
        written += 1
    return written
