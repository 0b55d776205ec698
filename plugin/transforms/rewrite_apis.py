"""The first transform: rewrite API versions the target cluster does not serve (parameters
``rewriteApis``, ``onRemoved``, ``additionalVersions``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from argocd_lifecycle.deprecations.knowledge import knowledge_base
from argocd_lifecycle.deprecations.rules import KnowledgeBase
from argocd_lifecycle.errors import ConfigError, RenderError
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.rewrite.engine import DROPPED, Rewriter
from argocd_lifecycle.plugin.rewrite.policy import Policy
from argocd_lifecycle.plugin.rewrite.target import Target
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.plugin.stream.manifest import Manifest
from argocd_lifecycle.yaml import yamlio


def rules_of(settings: PluginSettings) -> KnowledgeBase:
    """The built-in table, plus the app's own rules when ``additionalVersions`` names a file in it."""
    name = settings.parameters.additional_versions
    if not name:
        return knowledge_base()
    path = (settings.app_dir / name).resolve()
    if not path.is_relative_to(settings.app_dir):
        raise ConfigError(f"parameter additionalVersions: {name} is outside the application folder")
    label = f"additionalVersions ({Path(name).as_posix()})"
    if path.exists():
        yamlio.read_file(path, label, settings.limits)  # a regular file under the size limit
    return knowledge_base(path, label=label)


@dataclass(frozen=True)
class RewriteApis:
    kb: KnowledgeBase
    target: Target
    policy: Policy

    @classmethod
    def for_settings(cls, settings: PluginSettings, target: Target) -> RewriteApis:
        return cls(rules_of(settings), target, Policy(settings.parameters.on_removed))

    def __call__(self, manifests: list[Manifest], diagnostics: Diagnostics) -> list[Manifest]:
        if not self.target.known:
            listed = [m for m in manifests if self.kb.lookup(m.api_version, m.kind) is not None]
            if listed:  # only worth saying when an object could be affected
                diagnostics.note(
                    f"API rewrite skipped for {len(listed)} object(s) with deprecated or removed API versions "
                    "(e.g. " + listed[0].ref + "): the target Kubernetes version is unknown (KUBE_VERSION and "
                    "KUBE_API_VERSIONS are empty; pass --kube-version)"
                )
            return manifests
        rewriter = Rewriter(self.kb, self.target, self.policy)
        out: list[Manifest] = []
        for m in manifests:
            if not rewriter.needs(m.api_version, m.kind):
                out.append(m)  # the common case, decided on the identity: the object is never built
                continue
            new = rewriter.rewrite(m.obj, m.where)
            if new is not DROPPED:
                out.append(m if new is m.obj else m.with_obj(new))
        for line in rewriter.warnings:
            diagnostics.warn(line)
        if rewriter.problems:
            raise RenderError(rewriter.problems[0], problems=rewriter.problems)
        return out
