"""HPA-aware replicas: a workload an autoscaler scales must not pin ``spec.replicas``.

Otherwise self-heal resets the replica count the HPA (or KEDA) chose, and the two fight forever.
The first render without it, of a workload Argo CD last applied with it, makes Kubernetes default it to 1:
the render cannot see the live object, so that adoption is the operator's one step (README, "Adopting an
existing autoscaled workload"; tests/e2e/test_e2e_adoption.py).
"""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.stream.manifest import Manifest

SCALABLE_KINDS = ("Deployment", "StatefulSet")
SCALER_KINDS = ("HorizontalPodAutoscaler", "ScaledObject")


def _targets(manifests: list[Manifest]) -> dict[tuple[str, str, str], str]:
    """(namespace, kind, name) of each scaled workload -> who scales it."""
    found: dict[tuple[str, str, str], str] = {}
    for m in manifests:
        if m.kind not in SCALER_KINDS:
            continue  # decided on the identity: other objects are never built here
        spec: Any = m.obj.get("spec")
        if not isinstance(spec, dict):
            continue
        ref: Any = spec.get("scaleTargetRef")
        if not isinstance(ref, dict) or not ref.get("name"):
            continue
        if m.kind == "HorizontalPodAutoscaler" and m.group == "autoscaling":
            kind = str(ref.get("kind", ""))
        elif m.kind == "ScaledObject" and m.group == "keda.sh":
            kind = str(ref.get("kind") or "Deployment")  # KEDA's default target kind
        else:
            continue
        found[(m.namespace, kind, str(ref["name"]))] = f"{m.kind}/{m.name}"
    return found


def drop_autoscaled_replicas(manifests: list[Manifest], diagnostics: Diagnostics) -> list[Manifest]:
    targets = _targets(manifests)
    if not targets:
        return manifests
    out = []
    for m in manifests:
        scaler = targets.get((m.namespace, m.kind, m.name)) if m.kind in SCALABLE_KINDS else None
        spec = m.obj.get("spec") if scaler else None
        if scaler and isinstance(spec, dict) and "replicas" in spec:
            new_spec = {k: v for k, v in spec.items() if k != "replicas"}
            diagnostics.note(f"{m.ref}: dropped spec.replicas, {scaler} scales it")
            out.append(m.with_obj({**m.obj, "spec": new_spec}))
        else:
            out.append(m)
    return out
