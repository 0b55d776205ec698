"""HorizontalPodAutoscaler v2beta1 -> v2beta2 -> v2, and the opt-in autoscaling/v1 -> v2 upgrade.

v2beta2 and v2 share one shape, so v2beta1's metric sources are converted once (to v2beta2) and the
chain renames on. autoscaling/v1 objects may carry v2 data in ``autoscaling.alpha.kubernetes.io/*`` annotations.
"""

from __future__ import annotations

import json
from typing import Any

from argocd_lifecycle.plugin.rewrite.convert.registry import ConversionError, Notes, converter, rename
from argocd_lifecycle.plugin.rewrite.objects import drop, items, mapping, put, with_spec
from argocd_lifecycle.plugin.stream.manifest import Obj

KIND = ["HorizontalPodAutoscaler"]
ALPHA = "autoscaling.alpha.kubernetes.io/"
ALPHA_METRICS = ALPHA + "metrics"
ALPHA_BEHAVIOR = ALPHA + "behavior"
#: status-only annotations: recomputed by the controller, meaningless in a manifest
ALPHA_STATUS = (ALPHA + "current-metrics", ALPHA + "conditions")


def _target(*choices: tuple[str, str, Any]) -> Obj | None:
    """The first (type, field, value) whose value is set, as a v2 MetricTarget."""
    for kind, name, value in choices:
        if value is not None:
            return {"type": kind, name: value}
    return None


def _metric_id(src: Obj, selector_key: str) -> Obj:
    metric: Obj = {"name": src.get("metricName")}
    if src.get(selector_key) is not None:
        metric["selector"] = src[selector_key]
    return metric


def _resource(src: Obj) -> Obj:
    out = drop(src, "targetAverageUtilization", "targetAverageValue")
    target = _target(
        ("Utilization", "averageUtilization", src.get("targetAverageUtilization")),
        ("AverageValue", "averageValue", src.get("targetAverageValue")),
    )
    return {**out, "target": target} if target else out


def _metric(metric: Any, notes: Notes) -> Any:
    """One v2beta1 MetricSpec in v2beta2/v2 shape (autoscaling/v2beta1 conversion.go, by hand)."""
    if not isinstance(metric, dict):
        return metric
    kind = metric.get("type")
    if kind in ("Resource", "ContainerResource"):
        key = "resource" if kind == "Resource" else "containerResource"
        return {**metric, key: _resource(mapping(metric.get(key)))}
    if kind == "Pods":
        src = mapping(metric.get("pods"))
        pods: Obj = {"metric": _metric_id(src, "selector")}
        target = _target(("AverageValue", "averageValue", src.get("targetAverageValue")))
        return {**metric, "pods": {**pods, "target": target} if target else pods}
    if kind == "Object":
        src = mapping(metric.get("object"))
        obj: Obj = {"describedObject": src.get("target"), "metric": _metric_id(src, "selector")}
        target = _target(
            ("AverageValue", "averageValue", src.get("averageValue")),
            ("Value", "value", src.get("targetValue")),
        )
        return {**metric, "object": {**obj, "target": target} if target else obj}
    if kind == "External":
        src = mapping(metric.get("external"))
        ext: Obj = {"metric": _metric_id(src, "metricSelector")}
        target = _target(
            ("Value", "value", src.get("targetValue")),
            ("AverageValue", "averageValue", src.get("targetAverageValue")),
        )
        return {**metric, "external": {**ext, "target": target} if target else ext}
    notes.warn(f"spec.metrics: unknown metric type {kind!r} copied unchanged")
    return metric


def _metrics(metrics: list[Any], notes: Notes) -> list[Any]:
    return [_metric(m, notes) for m in metrics]


@converter("autoscaling/v2beta1", KIND, "autoscaling/v2beta2")
def hpa_from_v2beta1(obj: Obj, notes: Notes) -> Obj:
    spec = mapping(obj.get("spec"))
    if "metrics" not in spec:
        return obj
    return with_spec(obj, {**spec, "metrics": _metrics(items(spec["metrics"]), notes)})


converter("autoscaling/v2beta2", KIND, "autoscaling/v2")(rename)

# Go field names of the internal HorizontalPodAutoscalerBehavior, matched case-insensitively
_BEHAVIOR_KEYS = {
    k.lower(): k
    for k in (
        "scaleUp",
        "scaleDown",
        "stabilizationWindowSeconds",
        "selectPolicy",
        "policies",
        "type",
        "value",
        "periodSeconds",
        "tolerance",
    )
}


def _behavior(value: Any, path: str, notes: Notes) -> Any:
    if isinstance(value, list):
        return [_behavior(v, f"{path}[{i}]", notes) for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    out: Obj = {}
    for key, inner in value.items():
        name = _BEHAVIOR_KEYS.get(str(key).lower())
        if name is None:
            notes.warn(f"{ALPHA_BEHAVIOR}: unknown field {path}{key} dropped")
        elif inner is not None:
            out[name] = _behavior(inner, f"{path}{name}.", notes)
    return out


def _annotation_json(annotations: Obj, key: str) -> Any:
    try:
        return json.loads(str(annotations[key]))
    except json.JSONDecodeError as exc:
        raise ConversionError(f"annotation {key} is not valid JSON ({exc.msg})") from exc


@converter("autoscaling/v1", KIND, "autoscaling/v2", opt_in_since=(1, 23))
def hpa_from_v1(obj: Obj, notes: Notes) -> Obj:
    meta = mapping(obj.get("metadata"))
    annotations = mapping(meta.get("annotations"))
    spec = mapping(obj.get("spec"))
    metrics: list[Any] = []
    cpu = spec.get("targetCPUUtilizationPercentage")
    extra = _annotation_json(annotations, ALPHA_METRICS) if ALPHA_METRICS in annotations else []
    if not isinstance(extra, list):
        raise ConversionError(f"annotation {ALPHA_METRICS} must hold a JSON list of metrics")
    if cpu is None and not extra:
        cpu = 80  # what autoscaling/v1 means when nothing is set
        notes.warn("no target given: wrote autoscaling/v1's implicit CPU utilization target of 80%")
    if cpu is not None:
        metrics.append(
            {
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": cpu}},
            }
        )
    metrics.extend(_metrics(extra, notes))
    spec = put(drop(spec, "targetCPUUtilizationPercentage"), "metrics", metrics)
    if ALPHA_BEHAVIOR in annotations:
        behavior = _behavior(_annotation_json(annotations, ALPHA_BEHAVIOR), "", notes)
        spec = put(spec, "behavior", behavior)
    kept = drop(annotations, ALPHA_METRICS, ALPHA_BEHAVIOR, *ALPHA_STATUS)
    meta = {**meta, "annotations": kept} if kept else drop(meta, "annotations")
    return {**with_spec(obj, spec), "metadata": meta}
