"""Kustomize folders: ``kustomize build``, with ``--enable-helm`` when the parameters ask for it.

What the kustomization may reach is checked first (kustomize_refs.py); kustomize runs with a fixed argv
(no user value in it) and, unless ``allowRemoteBases=true``, without any way to the network.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass

from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.render import kustomize_refs
from argocd_lifecycle.plugin.render.kustomize_refs import Reach
from argocd_lifecycle.plugin.render.tool import RunningTool, start_tool
from argocd_lifecycle.plugin.settings import PluginSettings


def kustomize_argv(settings: PluginSettings) -> list[str]:
    argv = [settings.kustomize, "build"]
    if settings.parameters.enable_helm:
        argv.append("--enable-helm")
        helm = shutil.which(settings.helm)
        if helm:
            argv.append(f"--helm-command={helm}")
    return [*argv, "--", "."]


@dataclass(frozen=True)
class _KustomizeOverlap:
    """Around ``kustomize build``: the caller's work while it renders (the patch warnings, which never
    fail the render: render/start.py), the reached files' secrets masked when it failed."""

    settings: PluginSettings
    diagnostics: Diagnostics
    reach: Reach
    warnings: Callable[[], None]

    def mask(self, text: str) -> str:
        return self.diagnostics.clean(text)

    def meanwhile(self) -> None:
        self.warnings()

    def failed(self) -> None:
        self.diagnostics.secrets.add(self.reach.file_secrets(self.settings.limits))

    def done(self) -> None:
        return None


def start(settings: PluginSettings, diagnostics: Diagnostics, *, meanwhile: Callable[[], None]) -> RunningTool:
    """Check what the kustomization may reach, then start kustomize; ``meanwhile`` runs while it renders."""
    params = settings.parameters
    reach = kustomize_refs.check(
        settings.app_dir, settings.repo_root, allow_remote=params.allow_remote_bases, limits=settings.limits
    )
    diagnostics.secrets.add(reach.secrets)
    return start_tool(
        "kustomize",
        kustomize_argv(settings),
        cwd=settings.app_dir,
        max_output=settings.limits.max_expanded_bytes,
        overlap=_KustomizeOverlap(settings, diagnostics, reach, meanwhile),
        offline=not params.allow_remote_bases,
    )
