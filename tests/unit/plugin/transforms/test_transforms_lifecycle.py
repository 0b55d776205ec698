"""Lifecycle policy (plugin/transforms/lifecycle.py): no prune, no delete while a cluster goes away."""

from __future__ import annotations

from pathlib import Path

import pytest

from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.transforms.lifecycle import forbid_prune_and_delete, merge_sync_options
from argocd_lifecycle.plugin.transforms.plan import run
from tests.unit.plugin.transforms.helpers import obj, planned


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
