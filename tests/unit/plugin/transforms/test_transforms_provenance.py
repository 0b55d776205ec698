"""Provenance (plugin/transforms/provenance.py): the version the objects were rendered for."""

from __future__ import annotations

from pathlib import Path

from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.transforms.plan import run
from argocd_lifecycle.plugin.transforms.provenance import StampRenderedFor
from tests.unit.plugin.transforms.helpers import obj, planned


def test_rendered_for_uses_major_minor(tmp_path: Path) -> None:
    steps = planned(tmp_path, KUBE_VERSION="1.29.3")
    assert StampRenderedFor("1.29") in steps
    out = run(steps, [obj("Deployment", "a")], Diagnostics())
    assert out[0].obj["metadata"]["annotations"] == {"argocd-lifecycle.io/rendered-for": "1.29"}
    # without a target version nothing is stamped
    assert not any(isinstance(s, StampRenderedFor) for s in planned(tmp_path))
    assert run(planned(tmp_path), [obj("Deployment", "a")], Diagnostics())[0].obj["metadata"] == {"name": "a"}
