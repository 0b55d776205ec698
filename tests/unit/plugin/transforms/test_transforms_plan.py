"""The transform plan (plugin/transforms/plan.py): which steps run, in which order, from the settings."""

from __future__ import annotations

from pathlib import Path

from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.transforms.hpa import drop_autoscaled_replicas
from argocd_lifecycle.plugin.transforms.plan import run
from tests.unit.plugin.transforms.helpers import hpa, obj, planned


def test_switch_off_by_parameter(tmp_path: Path) -> None:
    assert drop_autoscaled_replicas in planned(tmp_path)
    steps = planned(tmp_path, ARGOCD_APP_PARAMETERS='[{"name":"hpaAwareReplicas","string":"false"}]')
    assert drop_autoscaled_replicas not in steps
    out = run(steps, [obj("Deployment", "web", replicas=3), hpa("Deployment", "web")], Diagnostics())
    assert out[0].obj["spec"]["replicas"] == 3
