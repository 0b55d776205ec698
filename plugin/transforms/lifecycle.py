"""Lifecycle policy: while a cluster is going away or out of reach, never prune or delete its objects."""

from __future__ import annotations

from argocd_lifecycle.model import Annotation
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.stream.manifest import Manifest

PROTECTIVE_OPTIONS = ("Prune=false", "Delete=false")


def merge_sync_options(existing: str, required: tuple[str, ...]) -> str:
    """Merge ``Key=value`` options: keep the others in order, force ours (an earlier ``Prune=true`` loses)."""
    forced = {opt.split("=", 1)[0]: opt for opt in required}
    kept = [o.strip() for o in existing.split(",") if o.strip() and o.strip().split("=", 1)[0] not in forced]
    return ",".join([*kept, *required])


def forbid_prune_and_delete(manifests: list[Manifest], diagnostics: Diagnostics) -> list[Manifest]:
    """Every object gets ``Prune=false,Delete=false`` (the plan adds this step in the protective phases)."""
    out = []
    for m in manifests:
        meta = dict(m.obj.get("metadata") or {})
        annotations = dict(meta.get("annotations") or {})
        annotations[Annotation.SYNC_OPTIONS] = merge_sync_options(
            str(annotations.get(Annotation.SYNC_OPTIONS, "")), PROTECTIVE_OPTIONS
        )
        meta["annotations"] = annotations
        out.append(m.with_obj({**m.obj, "metadata": meta}))
    return out
