"""The transform pipeline: small pure functions ``(manifests, context) -> manifests``, run in order.

Later parts register here (the API rewrite engine runs first, so the other transforms see the final
apiVersions). Entries are "module:function" strings imported on first use, keeping start-up cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.manifest import Manifest
from argocd_lifecycle.plugin.settings import PluginSettings


@dataclass
class TransformContext:
    settings: PluginSettings
    diagnostics: Diagnostics


Transform = Callable[[list[Manifest], TransformContext], list[Manifest]]

#: (name, "module:function"), in pipeline order
REGISTRY: list[tuple[str, str]] = [
    ("rewrite-apis", "argocd_lifecycle.plugin.rewrite.transform:rewrite_apis"),
    ("hpa-aware-replicas", "argocd_lifecycle.plugin.transforms.hpa:drop_autoscaled_replicas"),
    ("lifecycle-policy", "argocd_lifecycle.plugin.transforms.lifecycle:apply_phase_policy"),
    ("provenance", "argocd_lifecycle.plugin.transforms.provenance:stamp_rendered_for"),
    ("validate-schemas", "argocd_lifecycle.plugin.rewrite.transform:validate_schemas"),
]


def load(target: str) -> Transform:
    module_name, attr = target.split(":")
    fn: Transform = getattr(importlib.import_module(module_name), attr)
    return fn


def run_all(manifests: list[Manifest], ctx: TransformContext) -> list[Manifest]:
    for _name, target in REGISTRY:
        manifests = load(target)(manifests, ctx)
    return manifests
