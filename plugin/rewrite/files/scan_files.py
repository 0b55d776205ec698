"""Walk the files named on the command line for ``scan`` (``convert``: plugin/rewrite/files/convert_files.py)."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.plugin.rewrite.files.sources import SourceError, index, list_sources, load, read
from argocd_lifecycle.plugin.rewrite.scan import Finding, Scanner


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
