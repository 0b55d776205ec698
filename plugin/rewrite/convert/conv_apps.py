"""Workloads (Deployment, DaemonSet, StatefulSet, ReplicaSet) from extensions and apps betas -> apps/v1.

Policy "keep behaviour": finite old defaults that differ from apps/v1's are written out (OnDelete,
maxSurge/maxUnavailable 1/1, revisionHistoryLimit 2); unbounded ones cannot be, so they are warned about.
"""

from __future__ import annotations

from argocd_lifecycle.plugin.rewrite.convert.registry import ConversionError, Notes, converter, rename
from argocd_lifecycle.plugin.rewrite.objects import drop, mapping, put, with_spec
from argocd_lifecycle.plugin.stream.manifest import Obj

APPS = "apps/v1"
EXT = "extensions/v1beta1"
BETA1 = "apps/v1beta1"
BETA2 = "apps/v1beta2"


def _selector(spec: Obj, notes: Notes) -> Obj:
    """apps/v1 requires a selector; the old defaulter used *all* template labels, so the live one matches."""
    if spec.get("selector") is not None:
        return spec
    labels = mapping(mapping(mapping(spec.get("template")).get("metadata")).get("labels"))
    if not labels:
        raise ConversionError(
            "has no spec.selector and no template labels to derive one from: add spec.selector by hand"
        )
    notes.warn(
        "spec.selector written from the template labels "
        f"({', '.join(f'{k}={v}' for k, v in labels.items())}); selectors are immutable: it must equal "
        "the live object's selector"
    )
    return put(spec, "selector", {"matchLabels": dict(labels)}, before="template")


def _drop_field(spec: Obj, name: str, notes: Notes, why: str) -> Obj:
    if name not in spec:
        return spec
    notes.warn(f"spec.{name} dropped ({why})")
    return drop(spec, name)


def _pin_rolling_update(spec: Obj, notes: Notes) -> Obj:
    """extensions/v1beta1 defaulted maxSurge and maxUnavailable to 1; apps/v1 uses 25%."""
    strategy = mapping(spec.get("strategy"))
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        return spec
    rolling = mapping(strategy.get("rollingUpdate"))
    missing = [k for k in ("maxSurge", "maxUnavailable") if rolling.get(k) is None]
    if not missing:
        return spec
    rolling = {**rolling, **dict.fromkeys(missing, 1)}
    notes.warn(f"spec.strategy.rollingUpdate {' and '.join(missing)} pinned to the old default 1 (apps/v1: 25%)")
    strategy = {**strategy, "type": "RollingUpdate", "rollingUpdate": rolling}
    return put(spec, "strategy", strategy, before="template")


def _pin_on_delete(spec: Obj, notes: Notes, was: str) -> Obj:
    """The old default update strategy was OnDelete; apps/v1 defaults to RollingUpdate."""
    strategy = mapping(spec.get("updateStrategy"))
    if strategy.get("type"):
        return spec
    notes.warn(f"spec.updateStrategy pinned to the {was} default OnDelete (apps/v1: RollingUpdate)")
    return put(spec, "updateStrategy", {**strategy, "type": "OnDelete"}, before="template")


@converter(EXT, ["Deployment"], APPS)
def deployment_from_extensions(obj: Obj, notes: Notes) -> Obj:
    spec = mapping(obj.get("spec"))
    spec = _selector(spec, notes)
    spec = _drop_field(spec, "rollbackTo", notes, "not part of apps/v1: use kubectl rollout undo")
    spec = _pin_rolling_update(spec, notes)
    if spec.get("revisionHistoryLimit") is None:
        notes.warn("spec.revisionHistoryLimit now defaults to 10 (extensions/v1beta1 kept every revision)")
    if spec.get("progressDeadlineSeconds") is None:
        notes.warn("spec.progressDeadlineSeconds now defaults to 600 (extensions/v1beta1 had no deadline)")
    return with_spec(obj, spec)


@converter(BETA1, ["Deployment"], APPS)
def deployment_from_apps_v1beta1(obj: Obj, notes: Notes) -> Obj:
    spec = mapping(obj.get("spec"))
    spec = _selector(spec, notes)
    spec = _drop_field(spec, "rollbackTo", notes, "not part of apps/v1: use kubectl rollout undo")
    if spec.get("revisionHistoryLimit") is None:
        notes.warn("spec.revisionHistoryLimit pinned to the apps/v1beta1 default 2 (apps/v1: 10)")
        spec = put(spec, "revisionHistoryLimit", 2, before="selector")
    return with_spec(obj, spec)


@converter(EXT, ["DaemonSet"], APPS)
def daemonset_from_extensions(obj: Obj, notes: Notes) -> Obj:
    spec = mapping(obj.get("spec"))
    spec = _drop_field(spec, "templateGeneration", notes, "not part of apps/v1")
    spec = _selector(spec, notes)
    spec = _pin_on_delete(spec, notes, "extensions/v1beta1")
    return with_spec(obj, spec)


@converter(BETA1, ["StatefulSet"], APPS)
def statefulset_from_apps_v1beta1(obj: Obj, notes: Notes) -> Obj:
    spec = _selector(mapping(obj.get("spec")), notes)
    spec = _pin_on_delete(spec, notes, "apps/v1beta1")
    return with_spec(obj, spec)


@converter(EXT, ["ReplicaSet"], APPS)
@converter(BETA1, ["ReplicaSet"], APPS)
@converter(BETA2, ["Deployment", "DaemonSet", "StatefulSet", "ReplicaSet"], APPS)
def workload_same_defaults(obj: Obj, notes: Notes) -> Obj:
    """apps/v1beta2 has apps/v1's defaults; only a missing selector needs writing."""
    spec = mapping(obj.get("spec"))
    new = _selector(spec, notes)
    return obj if new is spec else with_spec(obj, new)


converter(BETA1, ["ControllerRevision"], APPS)(rename)
converter(BETA2, ["ControllerRevision"], APPS)(rename)
