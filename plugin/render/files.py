"""Plain YAML/JSON folders, where ``*.j2`` files are Jinja2 templates rendered in a sandbox."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from argocd_lifecycle.errors import LifecycleError, RenderError
from argocd_lifecycle.plugin import masking
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.plugin.stream import passthrough
from argocd_lifecycle.plugin.stream.manifest import Manifest
from argocd_lifecycle.plugin.stream.parse import Budget, load_documents, to_manifests
from argocd_lifecycle.plugin.walk import TEMPLATE_SUFFIX, check_symlinks, manifest_files
from argocd_lifecycle.yaml import yamlio

__all__ = ["app_files", "check_symlinks", "render", "template_context"]

#: renders one template's text (named by its path) into documents, within the render's budget
Template = Callable[[str, str, Budget], list[Any]]


def app_files(app_dir: Path) -> list[Path]:
    """Manifest files and templates of a plain app, recursive (links inside the folder are followed),
    sorted by relative path."""
    found = manifest_files(app_dir, templates=True, follow_links=True)
    return sorted(found, key=lambda p: p.relative_to(app_dir).as_posix())


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


def _manifests(
    path: Path,
    rel: str,
    settings: PluginSettings,
    *,
    budget: Budget,
    template: Callable[[], Template],
    diagnostics: Diagnostics,
) -> list[Manifest]:
    text = yamlio.read_file(path, rel, settings.limits)
    if path.name.endswith(TEMPLATE_SUFFIX):
        docs = template()(text, rel, budget)
    elif path.name.endswith(".json"):
        docs = load_documents(text, rel, limits=settings.limits, json_file=True, budget=budget)
    else:
        # a YAML file is read as a tool's output is: each document identified from its text, built only
        # when a transform changes it, and printed as written otherwise (comments and quoting kept)
        found = passthrough.read_stream(text, rel, limits=settings.limits, budget=budget)
        diagnostics.secrets.add(masking.from_documents(passthrough.secret_objects(found)))
        return found
    # a Secret's values are masked from here on, before any later problem is printed
    diagnostics.secrets.add(masking.from_documents(docs))
    return to_manifests(docs, rel)


def render(settings: PluginSettings, diagnostics: Diagnostics, templates: Callable[[], Template]) -> list[Manifest]:
    """Every manifest file and template of the app folder; ``templates`` makes the template renderer,
    called once, at the first template (render/start.py)."""
    app_dir = settings.app_dir
    budget = Budget(settings.limits.max_expanded_bytes)
    made: list[Template] = []

    def template() -> Template:
        if not made:
            made.append(templates())
        return made[0]

    manifests: list[Manifest] = []
    problems: list[str] = []
    for path in app_files(app_dir):
        rel = path.relative_to(app_dir).as_posix()
        try:
            found = _manifests(path, rel, settings, budget=budget, template=template, diagnostics=diagnostics)
            manifests.extend(found)
        except LifecycleError as exc:
            problems.extend(exc.lines())
    if problems:
        raise RenderError(problems[0], problems=problems)
    return manifests
