"""Walk the files named on the command line for ``scan`` and ``convert``."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.rewrite.convert_files import Converted, convert_text
from argocd_lifecycle.plugin.rewrite.engine import Rewriter
from argocd_lifecycle.plugin.rewrite.scan import Finding, Scanner
from argocd_lifecycle.plugin.rewrite.sources import SourceError, index, list_sources, load, read


def scan_paths(paths: list[str], scanner: Scanner) -> tuple[list[Finding], int, list[str]]:
    """Findings, number of objects seen, and per-file errors (a bad file does not stop the scan)."""
    findings: list[Finding] = []
    errors: list[str] = []
    objects = 0
    for source in list_sources(paths):
        try:
            text = read(source)
            for doc in index(source, text):
                if doc.exact:
                    if doc.api_version and doc.kind:
                        objects += 1
                        found = scanner.check(
                            source.label,
                            doc.index,
                            doc.api_version,
                            doc.kind,
                            name=doc.name or doc.generate_name,
                            namespace=doc.namespace,
                        )
                        if found is not None:
                            findings.append(found)
                    continue
                obj: Any = load(source, text, doc)
                objects += 1
                findings.extend(scanner.check_object(source.label, doc.index, obj))
        except SourceError as exc:
            errors.append(exc.message)
    return findings, objects, errors


def convert_paths(paths: list[str], rewriter: Rewriter, *, validate: bool = False) -> list[Converted]:
    """Every file converted in memory; raises before anything is written when a file is bad."""
    results = [convert_text(source, read(source), rewriter, keep_objects=validate) for source in list_sources(paths)]
    if validate and rewriter.target.current is not None:
        from argocd_lifecycle.plugin.validate import validate_objects

        problems: list[str] = []
        for version in (v for v in (rewriter.target.current, rewriter.target.upgrade_to) if v is not None):
            report = validate_objects([o for r in results for o in r.objects], version)
            problems.extend(report.problems)
        if problems:
            raise RenderError(problems[0], problems=problems)
    return results
