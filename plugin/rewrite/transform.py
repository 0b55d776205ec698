"""The plugin transforms: rewrite APIs for the target cluster (first) and validate schemas (last).

Parameters (plugin/parameters.py): ``rewriteApis``, ``onRemoved``, ``additionalVersions`` (a file in
the app folder), ``validate``. The target comes from the settings: ``KUBE_API_VERSIONS`` when present,
``KUBE_VERSION``, and while the cluster is Upgrading, ``ARGOCD_ENV_CLUSTER_UPGRADE_TO``.
"""

from __future__ import annotations

from pathlib import Path

from argocd_lifecycle.errors import ConfigError, RenderError
from argocd_lifecycle.model import Phase
from argocd_lifecycle.plugin import parameters as p
from argocd_lifecycle.plugin.manifest import Manifest
from argocd_lifecycle.plugin.rewrite.engine import DROPPED, OnRemoved, Policy, Rewriter
from argocd_lifecycle.plugin.rewrite.knowledge import KnowledgeBase, knowledge_base
from argocd_lifecycle.plugin.rewrite.target import Target
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.plugin.transforms import TransformContext


def target_of(settings: PluginSettings) -> Target:
    upgrading = settings.cluster_phase == Phase.UPGRADING and settings.upgrade_to is not None
    return Target.of(
        settings.kube_version.key if settings.kube_version else None,
        upgrade_to=settings.upgrade_to.key if upgrading and settings.upgrade_to else None,
        api_versions=settings.api_versions,
    )


def rules_of(settings: PluginSettings) -> KnowledgeBase:
    name = p.as_str(settings.parameters, "additionalVersions")
    if not name:
        return knowledge_base()
    path = (settings.app_dir / name).resolve()
    if not path.is_relative_to(settings.app_dir):
        raise ConfigError(f"parameter additionalVersions: {name} is outside the application folder")
    return knowledge_base(path, label=f"additionalVersions ({Path(name).as_posix()})")


def rewrite_apis(manifests: list[Manifest], ctx: TransformContext) -> list[Manifest]:
    settings = ctx.settings
    if not p.as_bool(settings.parameters, "rewriteApis"):
        return manifests
    policy = Policy(OnRemoved.parse(p.as_str(settings.parameters, "onRemoved") or "fail", where="parameter onRemoved"))
    target = target_of(settings)
    kb = rules_of(settings)
    if not target.known:
        listed = [m for m in manifests if kb.lookup(m.api_version, m.kind) is not None]
        if listed:  # only worth saying when an object could be affected
            ctx.diagnostics.note(
                f"API rewrite skipped for {len(listed)} object(s) with deprecated or removed API versions "
                "(e.g. " + listed[0].ref + "): the target Kubernetes version is unknown (KUBE_VERSION and "
                "KUBE_API_VERSIONS are empty; pass --kube-version)"
            )
        return manifests
    rewriter = Rewriter(kb, target, policy)
    objs = rewriter.rewrite_all([m.obj for m in manifests], [m.where for m in manifests])
    for line in rewriter.warnings:
        ctx.diagnostics.warn(line)
    if rewriter.problems:
        raise RenderError(rewriter.problems[0], problems=rewriter.problems)
    return [
        m if new is m.obj else m.with_obj(new) for m, new in zip(manifests, objs, strict=True) if new is not DROPPED
    ]


def validate_schemas(manifests: list[Manifest], ctx: TransformContext) -> list[Manifest]:
    settings = ctx.settings
    if not p.as_bool(settings.parameters, "validate"):
        return manifests
    from argocd_lifecycle.plugin.validate import validate_objects

    target = target_of(settings)
    versions = [v for v in (target.current, target.upgrade_to) if v is not None]
    if not versions:
        ctx.diagnostics.warn("schema validation skipped: the target Kubernetes version is unknown")
        return manifests
    problems: list[str] = []
    for version in versions:
        report = validate_objects([(f"{m.ref} ({m.where})", m.obj) for m in manifests], version)
        problems.extend(report.problems)
        if report.skipped and version == versions[0]:
            ctx.diagnostics.note(
                f"{len(report.skipped)} object(s) have no bundled schema (custom resources?) and were not "
                f"validated: {', '.join(report.skipped[:5])}{' ...' if len(report.skipped) > 5 else ''}"
            )
    if problems:
        raise RenderError(problems[0], problems=problems)
    return manifests
