"""Provenance: say which Kubernetes version the objects were rendered for."""

from __future__ import annotations

from dataclasses import dataclass

from argocd_lifecycle.model import Annotation
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.manifest import Manifest


@dataclass(frozen=True)
class StampRenderedFor:
    #: ``major.minor`` of the target
    version: str

    def __call__(self, manifests: list[Manifest], diagnostics: Diagnostics) -> list[Manifest]:
        out = []
        for m in manifests:
            meta = dict(m.obj.get("metadata") or {})
            meta["annotations"] = {**(meta.get("annotations") or {}), Annotation.RENDERED_FOR: self.version}
            out.append(m.with_obj({**m.obj, "metadata": meta}))
        return out
