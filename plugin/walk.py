"""Manifest files below a folder: the one walk that the plugin's plain renderer and scan/convert share."""

from __future__ import annotations

import os
from pathlib import Path

MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")
TEMPLATE_SUFFIX = ".j2"


def manifest_files(root: Path, *, templates: bool = False, follow_links: bool = False) -> list[Path]:
    """Files below ``root`` named ``*.yaml``, ``*.yml`` or ``*.json`` (also with ``.j2`` appended when
    ``templates``); hidden files and folders are skipped. In no particular order: each caller sorts
    the way its output promises."""
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=follow_links):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            stem = name.removesuffix(TEMPLATE_SUFFIX) if templates else name
            if not name.startswith(".") and stem.endswith(MANIFEST_SUFFIXES):
                found.append(Path(dirpath, name))
    return found
