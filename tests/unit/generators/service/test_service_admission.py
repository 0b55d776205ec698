"""Admission: the readiness gate, explicit departures, and the name, phase, label and version filters."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.generators.service.admission import admitted
from argocd_lifecycle.generators.service.inputs import parse_parameters

from .fleet_fixture import cluster, sample_fleet


def _names(params: dict[str, Any]) -> list[str]:
    wanted = parse_parameters(params)
    return [c.name for c in sample_fleet() if admitted(c, wanted)]


def test_ready_only_by_default_keeps_degraded_unreachable_and_decommissioning() -> None:
    assert _names({}) == ["prod-eu-1", "prod-us-1", "staging-1", "edge-7", "old-1"]
    assert "new-1" in _names({"readyOnly": False})
    assert "new-1" in _names({"readyOnly": "false"})


def test_drop_decommissioned_is_explicit() -> None:
    assert "old-1" not in _names({"dropDecommissioned": True})


def test_names_phases_and_selector_filters() -> None:
    assert _names({"names": ["edge-7", "nope"]}) == ["edge-7"]
    assert _names({"phases": ["Degraded", "Unreachable"]}) == ["prod-us-1", "edge-7"]
    assert _names({"labelSelector": {"matchLabels": {"env": "staging"}}}) == ["staging-1"]
    assert _names(
        {"labelSelector": {"matchExpressions": [{"key": "region", "operator": "NotIn", "values": ["eu"]}]}}
    ) == ["prod-us-1", "staging-1", "edge-7", "old-1"]


def test_version_bounds_compare_on_the_parts_they_name() -> None:
    assert _names({"minVersion": "1.29", "maxVersion": "1.30"}) == ["prod-eu-1", "prod-us-1", "staging-1"]
    assert _names({"maxVersion": "1.30.3"}) == ["prod-eu-1", "prod-us-1", "edge-7", "old-1"]
    assert _names({"minVersion": "v1.30.3"}) == ["staging-1"]
    unknown = cluster("fresh", version="")
    assert admitted(unknown, parse_parameters({})) is True
    assert admitted(unknown, parse_parameters({"minVersion": "1.20"})) is False


def test_the_implicit_in_cluster_entry_only_without_a_label_selector() -> None:
    """As Argo CD's Cluster generator: a local cluster has no Secret, so no labels to match; any selector
    (even one a label-less cluster would match, such as NotIn or DoesNotExist) leaves it out."""
    local = cluster("in-cluster", env=None, labels={}, implicit=True)
    assert admitted(local, parse_parameters({})) is True
    assert admitted(local, parse_parameters({"labelSelector": {}})) is True
    assert admitted(local, parse_parameters({"labelSelector": {"matchLabels": {}}})) is True
    for selector in (
        {"matchLabels": {"env": "prod"}},
        {"matchExpressions": [{"key": "env", "operator": "DoesNotExist"}]},
        {"matchExpressions": [{"key": "region", "operator": "NotIn", "values": ["eu"]}]},
    ):
        assert admitted(local, parse_parameters({"labelSelector": selector})) is False, selector
    declared = cluster("in-cluster", env=None, labels={})  # a Secret for it: its labels decide
    assert admitted(declared, parse_parameters({"labelSelector": {"matchExpressions": [
        {"key": "env", "operator": "DoesNotExist"}]}})) is True  # fmt: skip
