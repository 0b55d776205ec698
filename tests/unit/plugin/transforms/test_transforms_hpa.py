"""HPA-aware replicas (plugin/transforms/hpa.py)."""

from __future__ import annotations

import pytest

from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.transforms.hpa import drop_autoscaled_replicas
from tests.unit.plugin.transforms.helpers import hpa, obj


@pytest.mark.parametrize("hpa_api", ["autoscaling/v1", "autoscaling/v2", "autoscaling/v2beta2"])
def test_hpa_target_loses_replicas(hpa_api: str) -> None:
    diagnostics = Diagnostics()
    out = drop_autoscaled_replicas(
        [obj("Deployment", "web", replicas=3, paused=False), hpa("Deployment", "web", hpa_api)], diagnostics
    )
    assert out[0].obj["spec"] == {"paused": False}
    assert "Deployment/web: dropped spec.replicas, HorizontalPodAutoscaler/web-hpa scales it" in diagnostics.lines[0]


def test_statefulset_and_keda_scaled_object() -> None:
    keda = obj("ScaledObject", "so", "keda.sh/v1alpha1", scaleTargetRef={"name": "api"})  # kind defaults to Deployment
    keda_sts = obj("ScaledObject", "so2", "keda.sh/v1alpha1", scaleTargetRef={"name": "db", "kind": "StatefulSet"})
    out = drop_autoscaled_replicas(
        [obj("Deployment", "api", replicas=2), obj("StatefulSet", "db", replicas=3), keda, keda_sts],
        Diagnostics(),
    )
    assert "replicas" not in out[0].obj["spec"]
    assert "replicas" not in out[1].obj["spec"]


def test_untargeted_and_other_namespace_keep_replicas() -> None:
    objs = [
        obj("Deployment", "web", ns="a", replicas=3),
        obj("Deployment", "other", ns="b", replicas=1),
        hpa("Deployment", "web", ns="b"),
        hpa("StatefulSet", "other", ns="b"),
    ]
    out = drop_autoscaled_replicas(objs, Diagnostics())
    assert out[0].obj["spec"]["replicas"] == 3  # HPA lives in another namespace
    assert out[1].obj["spec"]["replicas"] == 1  # HPA targets a StatefulSet of that name, not the Deployment


def test_input_objects_are_not_mutated() -> None:
    dep = obj("Deployment", "web", replicas=3)
    drop_autoscaled_replicas([dep, hpa("Deployment", "web")], Diagnostics())
    assert dep.obj["spec"]["replicas"] == 3
