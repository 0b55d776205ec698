"""Provenance: say which Kubernetes version the objects were rendered for."""

from __future__ import annotations

from argocd_lifecycle.model import Annotation
from argocd_lifecycle.plugin.manifest import Manifest
from argocd_lifecycle.plugin.transforms import TransformContext


def stamp_rendered_for(manifests: list[Manifest], ctx: TransformContext) -> list[Manifest]:
    version = ctx.settings.kube_version
    if version is None:
        return manifests
    out = []
    for m in manifests:
        meta = dict(m.obj.get("metadata") or {})
        meta["annotations"] = {
            **(meta.get("annotations") or {}),
            Annotation.RENDERED_FOR: version.minor_version,
        }
        out.append(m.with_obj({**m.obj, "metadata": meta}))
    return out
