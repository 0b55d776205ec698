"""The transforms: HPA-aware replicas, lifecycle policy, provenance, and the plan that lists them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.manifest import Manifest
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.plugin.transforms.hpa import drop_autoscaled_replicas
from argocd_lifecycle.plugin.transforms.lifecycle import forbid_prune_and_delete, merge_sync_options
from argocd_lifecycle.plugin.transforms.plan import Transform, plan, run
from argocd_lifecycle.plugin.transforms.provenance import StampRenderedFor


def planned(tmp_path: Path, **env: str) -> tuple[Transform, ...]:
    return plan(PluginSettings.from_environ(env, app_dir=tmp_path))


def obj(kind: str, name: str, api: str = "apps/v1", ns: str | None = None, **spec: Any) -> Manifest:
    meta: dict[str, Any] = {"name": name}
    if ns:
        meta["namespace"] = ns
    return Manifest({"apiVersion": api, "kind": kind, "metadata": meta, "spec": spec}, "x.yaml", 0)


def hpa(target_kind: str, name: str, api: str = "autoscaling/v2", ns: str | None = None) -> Manifest:
    return obj(
        "HorizontalPodAutoscaler",
        f"{name}-hpa",
        api,
        ns,
        scaleTargetRef={"apiVersion": "apps/v1", "kind": target_kind, "name": name},
    )


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


def test_switch_off_by_parameter(tmp_path: Path) -> None:
    assert drop_autoscaled_replicas in planned(tmp_path)
    steps = planned(tmp_path, ARGOCD_APP_PARAMETERS='[{"name":"hpaAwareReplicas","string":"false"}]')
    assert drop_autoscaled_replicas not in steps
    out = run(steps, [obj("Deployment", "web", replicas=3), hpa("Deployment", "web")], Diagnostics())
    assert out[0].obj["spec"]["replicas"] == 3


def test_input_objects_are_not_mutated() -> None:
    dep = obj("Deployment", "web", replicas=3)
    drop_autoscaled_replicas([dep, hpa("Deployment", "web")], Diagnostics())
    assert dep.obj["spec"]["replicas"] == 3


@pytest.mark.parametrize(
    ("existing", "merged"),
    [
        ("", "Prune=false,Delete=false"),
        ("ServerSideApply=true", "ServerSideApply=true,Prune=false,Delete=false"),
        ("Prune=true, Validate=false", "Validate=false,Prune=false,Delete=false"),
        ("Delete=confirm,Prune=false", "Prune=false,Delete=false"),
    ],
)
def test_merge_sync_options(existing: str, merged: str) -> None:
    assert merge_sync_options(existing, ("Prune=false", "Delete=false")) == merged


@pytest.mark.parametrize("phase", ["Decommissioning", "Unreachable"])
def test_protective_phases_stamp_every_object(phase: str, tmp_path: Path) -> None:
    steps = planned(tmp_path, ARGOCD_ENV_CLUSTER_PHASE=phase)
    assert forbid_prune_and_delete in steps
    out = run(steps, [obj("Deployment", "a"), obj("ConfigMap", "b", "v1")], Diagnostics())
    for m in out:
        assert m.obj["metadata"]["annotations"]["argocd.argoproj.io/sync-options"] == "Prune=false,Delete=false"


@pytest.mark.parametrize("phase", ["", "Ready", "Pending", "Upgrading", "Degraded"])
def test_other_phases_leave_objects_alone(phase: str, tmp_path: Path) -> None:
    steps = planned(tmp_path, ARGOCD_ENV_CLUSTER_PHASE=phase)
    assert forbid_prune_and_delete not in steps
    objs = [obj("Deployment", "a")]
    assert run(steps, objs, Diagnostics()) == objs


def test_rendered_for_uses_major_minor(tmp_path: Path) -> None:
    steps = planned(tmp_path, KUBE_VERSION="1.29.3")
    assert StampRenderedFor("1.29") in steps
    out = run(steps, [obj("Deployment", "a")], Diagnostics())
    assert out[0].obj["metadata"]["annotations"] == {"argocd-lifecycle.io/rendered-for": "1.29"}
    # without a target version nothing is stamped
    assert not any(isinstance(s, StampRenderedFor) for s in planned(tmp_path))
    assert run(planned(tmp_path), [obj("Deployment", "a")], Diagnostics())[0].obj["metadata"] == {"name": "a"}
