"""Plain YAML/JSON folders, where ``*.j2`` files are Jinja2 templates rendered in a sandbox."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.manifest import Manifest
from argocd_lifecycle.plugin.parse import parse_stream
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.plugin.walk import TEMPLATE_SUFFIX, manifest_files

MAX_FILE_BYTES = 10 * 1024 * 1024


def _inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root)


def check_symlinks(app_dir: Path) -> None:
    """Refuse any symlink under the app folder that leads out of it (the repo is untrusted input)."""
    for dirpath, dirnames, filenames in os.walk(app_dir):
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            if path.is_symlink() and not _inside(path, app_dir):
                rel = path.relative_to(app_dir)
                raise RenderError(f"{rel}: refused: symlink points outside the application folder")


def app_files(app_dir: Path) -> list[Path]:
    """Manifest files and templates of a plain app, recursive (links inside the folder are followed),
    sorted by relative path."""
    found = manifest_files(app_dir, templates=True, follow_links=True)
    return sorted(found, key=lambda p: p.relative_to(app_dir).as_posix())


def _read(path: Path, rel: str) -> str:
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise RenderError(f"{rel}: refused: file is {size / 1048576:.1f} MiB, over the 10 MiB limit")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise RenderError(f"{rel}: not UTF-8 text (byte {exc.start})") from exc


def template_context(settings: PluginSettings) -> dict[str, Any]:
    kube = settings.kube_version
    return {
        "cluster": {
            "name": settings.cluster_name,
            "phase": settings.cluster_phase,
            "upgradeTo": str(settings.upgrade_to or ""),
        },
        "kube": {
            "version": kube.minor_version if kube else "",
            "gitVersion": f"v{kube.semver}" if kube else "",
            "minor": kube.minor if kube else 0,
            "apiVersions": list(settings.api_versions),
        },
        "app": {
            "name": settings.app.name,
            "namespace": settings.app.namespace,
            "revision": settings.app.revision,
            "project": settings.app.project,
        },
        "parameters": dict(settings.raw_parameters),
        "env": dict(settings.env),
    }


def render(settings: PluginSettings) -> list[Manifest]:
    app_dir = settings.app_dir
    jinja = None
    manifests: list[Manifest] = []
    problems: list[str] = []
    for path in app_files(app_dir):
        rel = path.relative_to(app_dir).as_posix()
        text = _read(path, rel)
        if path.name.endswith(TEMPLATE_SUFFIX):
            if jinja is None:  # imported only when a template is rendered: the plugin path stays fast
                from argocd_lifecycle.plugin.render.jinja import JinjaRenderer

                jinja = JinjaRenderer(template_context(settings))
            text = jinja.render(text, rel)
        is_json = path.name.removesuffix(TEMPLATE_SUFFIX).endswith(".json")
        try:
            manifests.extend(parse_stream(text, rel, json_file=is_json))
        except RenderError as exc:
            problems.extend(exc.lines())
    if problems:
        raise RenderError(problems[0], problems=problems)
    return manifests
