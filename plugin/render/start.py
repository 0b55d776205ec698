"""One start for the three source kinds: the folder's kind is detected, its renderer imported (only
that one: a plain render never loads the tools' modules or Jinja2) and started, and ``manifests()``
gives its objects. A tool (Kustomize, Helm) starts as soon as the checks that decide whether it may run
have passed; what only shapes a message (kustomize's patch warnings and the rules they read) and the
output reader's imports run while it renders. This module is inside the import fence
(docs/architecture.md): its deferred imports are what keeps a plain render's cold start lean."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from argocd_lifecycle.plugin import masking
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.render.detect import detect
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.plugin.stream.manifest import Manifest
from argocd_lifecycle.plugin.stream.parse import Budget
from argocd_lifecycle.plugin.walk import check_symlinks

if TYPE_CHECKING:
    from argocd_lifecycle.plugin.render.files import Template
    from argocd_lifecycle.plugin.render.tool import RunningTool


@dataclass(frozen=True)
class Rendering:
    """A render under way: its source kind and how its objects are had (a tool's output, read once the
    tool is done, or the plain files, read then)."""

    source_type: str
    finish: Callable[[], list[Manifest]]

    def manifests(self) -> list[Manifest]:
        return self.finish()


def start(settings: PluginSettings, diagnostics: Diagnostics) -> Rendering:
    """Start rendering the app folder as its source kind renders it; Secret values found on the way are
    added to ``diagnostics``' masks as soon as they are read."""
    check_symlinks(settings.app_dir)
    kind = detect(settings.app_dir)
    if kind == "kustomize":
        from argocd_lifecycle.plugin.render import kustomize

        running = kustomize.start(settings, diagnostics, meanwhile=lambda: _patch_warnings(settings, diagnostics))
        return Rendering(kind, lambda: _tool_output(running, "kustomize build", settings, diagnostics))
    if kind == "helm":
        from argocd_lifecycle.plugin.render import helm

        running = helm.start(settings, diagnostics)
        return Rendering(kind, lambda: _tool_output(running, "helm template", settings, diagnostics))
    from argocd_lifecycle.plugin.render import files

    return Rendering(kind, lambda: files.render(settings, diagnostics, lambda: _templates(settings)))


def _tool_output(
    running: RunningTool, source: str, settings: PluginSettings, diagnostics: Diagnostics
) -> list[Manifest]:
    with running:
        # imported while the tool runs, as the renderer's own checks that need not hold it back run
        from argocd_lifecycle.plugin.stream import passthrough

        text = running.output()
    manifests = passthrough.read_stream(text, source, limits=settings.limits)
    diagnostics.secrets.add(masking.from_documents(passthrough.secret_objects(manifests)))
    return manifests


def _patch_warnings(settings: PluginSettings, diagnostics: Diagnostics) -> None:
    # imported here, while kustomize runs: the warnings read the deprecation rules
    from argocd_lifecycle.plugin.render import kustomize_patches

    kustomize_patches.warn_unmergeable(settings.app_dir, diagnostics, settings.limits)


def _templates(settings: PluginSettings) -> Template:
    """The sandboxed Jinja2 renderer, made at a plain app's first template (jinja2 is imported then)."""
    from argocd_lifecycle.plugin.render.files import template_context
    from argocd_lifecycle.plugin.render.jinja import JinjaRenderer
    from argocd_lifecycle.plugin.render.jinja_values import load_rendered

    jinja = JinjaRenderer(template_context(settings), max_output=settings.limits.max_expanded_bytes)

    def render(text: str, rel: str, budget: Budget) -> list[Any]:
        rendered, slots = jinja.render(text, rel)
        # JSON is YAML's flow style: JSON templates are read as YAML so printed values stay scalars there too
        return load_rendered(rendered, rel, slots, settings.limits, budget)

    return render
