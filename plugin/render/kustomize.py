"""Kustomize folders: ``kustomize build``, with ``--enable-helm`` when the parameters ask for it."""

from __future__ import annotations

import shutil

from argocd_lifecycle.plugin.render.tool import run_tool
from argocd_lifecycle.plugin.settings import PluginSettings


def kustomize_argv(settings: PluginSettings) -> list[str]:
    argv = [settings.kustomize, "build", "."]
    if settings.parameters.enable_helm:
        argv.append("--enable-helm")
        helm = shutil.which(settings.helm)
        if helm:
            argv += ["--helm-command", helm]
    return argv


def render(settings: PluginSettings) -> str:
    return run_tool("kustomize", kustomize_argv(settings), cwd=settings.app_dir)
