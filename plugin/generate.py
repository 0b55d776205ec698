"""The `plugin generate` pipeline: settings -> transform plan -> render -> parse -> transforms -> guards
-> one YAML stream. Everything the settings can get wrong fails before a tool runs."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from argocd_lifecycle import yamlio
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.plugin import guards
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.manifest import Manifest
from argocd_lifecycle.plugin.parse import parse_stream
from argocd_lifecycle.plugin.render import detect as detect_source
from argocd_lifecycle.plugin.render import files
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.plugin.transforms import plan as transforms


@dataclass(frozen=True)
class Result:
    source_type: str
    manifests: list[Manifest]
    text: str


def render_manifests(settings: PluginSettings) -> tuple[str, list[Manifest]]:
    files.check_symlinks(settings.app_dir)
    source_type = detect_source(settings.app_dir)
    if source_type == "kustomize":
        from argocd_lifecycle.plugin.render import kustomize

        return source_type, parse_stream(kustomize.render(settings), "kustomize build")
    if source_type == "helm":
        from argocd_lifecycle.plugin.render import helm

        return source_type, parse_stream(helm.render(settings), "helm template")
    return source_type, files.render(settings)


def secret_values(manifests: list[Manifest]) -> set[str]:
    """Values of Secret objects: masked in every diagnostic."""
    out: set[str] = set()
    for m in manifests:
        if m.kind == "Secret" and m.group == "":
            for key in ("data", "stringData"):
                values = m.obj.get(key)
                if isinstance(values, dict):
                    out.update(str(v) for v in values.values() if v is not None and len(str(v)) >= 3)
    return out


def generate(settings: PluginSettings, diagnostics: Diagnostics) -> Result:
    """Build the whole output in memory; raise RenderError (nothing printed) on any problem."""
    diagnostics.secrets.update(settings.secrets)
    steps = transforms.plan(settings)
    source_type, manifests = render_manifests(settings)
    diagnostics.secrets.update(secret_values(manifests))
    manifests = transforms.run(steps, manifests, diagnostics)
    guards.check_duplicates(manifests)
    guards.check_not_empty(manifests, allow_empty=settings.parameters.allow_empty)
    text = yamlio.dump_all([m.obj for m in manifests]) if manifests else ""
    return Result(source_type, manifests, text)


def run_command(path: Path, kube_version: str | None) -> int:
    """`plugin generate` as a process: objects on stdout only on success, one line per problem on
    stderr, exit 1 on any failure (Argo CD only sees "non-zero"). Needs no click: see core/entry.py."""
    diagnostics = Diagnostics()
    try:
        settings = PluginSettings.from_environ(os.environ, app_dir=path, kube_version=kube_version)
        result = generate(settings, diagnostics)
    except LifecycleError as exc:
        lines = [*diagnostics.rendered(), *("error: " + diagnostics.clean(line) for line in exc.lines())]
        sys.stderr.write("".join(line + "\n" for line in lines))
        return 1
    sys.stderr.write("".join(line + "\n" for line in diagnostics.rendered()))
    sys.stdout.write(result.text)
    sys.stdout.flush()
    return 0
