"""Parameter sets: shape shared with Argo CD's Cluster generator, lifecycle keys, the output list."""

from __future__ import annotations

from typing import Any

import pytest

from argocd_lifecycle.generators.service.inputs import parse_parameters
from argocd_lifecycle.generators.service.params import cluster_params, normalize_name, output_parameters
from argocd_lifecycle.generators.service.policy import PolicyTable
from argocd_lifecycle.model import Phase

from .fleet_fixture import SECRET_LABEL, cluster, sample_fleet

POLICY = PolicyTable.default()


@pytest.mark.parametrize(
    ("name", "normalized"),
    [
        ("in-cluster", "in-cluster"),
        ("Prod_EU 2", "prod-eu-2"),
        ("-.edge.-", "edge"),
        ("arn:aws:eks:eu-west-1:123:cluster/prod", "arn-aws-eks-eu-west-1-123-cluster-prod"),
        ("İstanbul", "istanbul"),  # Go's simple lowercase of U+0130 is plain "i"
        ("\u212aube", "kube"),  # KELVIN SIGN lowercases to ASCII k
        ("café", "caf"),  # each other rune becomes one "-", then trimmed
        ("a" * 300, "a" * 253),
        ("a" * 252 + "--b", "a" * 252),
    ],
)
def test_name_normalized_follows_argo_cd_sanitize_name(name: str, normalized: str) -> None:
    assert normalize_name(name) == normalized


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    return [value]


def test_parameter_set_has_cluster_generator_keys_and_lifecycle_keys() -> None:
    params = cluster_params(sample_fleet()[2], POLICY)  # staging-1, Upgrading
    assert params == {
        "name": "staging-1",
        "nameNormalized": "staging-1",
        "server": "https://staging-1.example.test:6443",
        "project": "",
        "metadata": {"labels": {**SECRET_LABEL, "env": "staging"}, "annotations": {"team": "platform"}},
        "lifecycle": {
            "phase": "Upgrading",
            "phaseSince": "2025-03-01T08:30:00Z",
            "ready": "true",
            "nodesKnown": "true",
            "syncEnabled": "true",
            "prune": "false",
            "selfHeal": "true",
        },
        "kubernetes": {
            "version": "1.30",
            "gitVersion": "v1.30.4",
            "major": "1",
            "minor": "30",
            "upgradeTo": "1.31",
            "upgradeBlockers": "",
            "upgradeClear": "",
            "upgradeBlocked": "",
            "upgradeBlockedSince": "",
        },
    }
    assert all(isinstance(leaf, str) for leaf in _leaves(params))


def test_metadata_maps_are_present_only_when_non_empty_like_the_cluster_generator() -> None:
    bare = cluster("bare", labels={}, annotations={}, project="team-a")
    params = cluster_params(bare, POLICY)
    assert params["metadata"] == {}
    assert params["project"] == "team-a"


def test_upgrade_to_is_empty_unless_upgrading_and_unknown_version_is_empty() -> None:
    leftover = cluster("x", Phase.READY, upgrade_to="1.31", version="")
    params = cluster_params(leftover, POLICY)
    assert params["kubernetes"] == {
        "version": "", "gitVersion": "", "major": "", "minor": "", "upgradeTo": "",
        "upgradeBlockers": "", "upgradeClear": "", "upgradeBlocked": "", "upgradeBlockedSince": "",
    }  # fmt: skip
    assert params["lifecycle"]["phaseSince"] == "2025-03-01T08:30:00Z"
    assert cluster_params(cluster("y", phase_since=None), POLICY)["lifecycle"]["phaseSince"] == ""


def test_probe_only_fields_never_reach_the_parameters() -> None:
    base = cluster("c")
    probed = cluster("c", nodes=9, nodes_ready=1, message="probe 812 ok", certificate_expires_at=None)
    assert cluster_params(base, POLICY) == cluster_params(probed, POLICY)


@pytest.mark.parametrize(
    ("phase", "sync", "prune", "heal"),
    [
        (Phase.READY, "true", "true", "true"),
        (Phase.PENDING, "false", "false", "false"),
        (Phase.UPGRADING, "true", "false", "true"),
        (Phase.DEGRADED, "true", "false", "true"),
        (Phase.UNREACHABLE, "false", "false", "false"),
        (Phase.DECOMMISSIONING, "false", "false", "false"),
    ],
)
def test_policy_defaults_by_phase(phase: Phase, sync: str, prune: str, heal: str) -> None:
    lifecycle = cluster_params(cluster("c", phase), POLICY)["lifecycle"]
    assert (lifecycle["syncEnabled"], lifecycle["prune"], lifecycle["selfHeal"]) == (sync, prune, heal)


def test_policy_overrides_change_the_parameters() -> None:
    policy = POLICY.with_overrides({"Upgrading": {"prune": True}, "Unreachable": {"selfHeal": True}})
    assert cluster_params(cluster("c", Phase.UPGRADING), policy)["lifecycle"]["prune"] == "true"
    assert cluster_params(cluster("c", Phase.UNREACHABLE), policy)["lifecycle"]["selfHeal"] == "true"
    assert cluster_params(cluster("c", Phase.UNREACHABLE), policy)["lifecycle"]["syncEnabled"] == "false"


def test_flat_list_and_input_echo() -> None:
    wanted = parse_parameters({"flatList": True, "env": "prod", "n": 3, "x": {"on": True, "l": [1.0, None]}})
    sets = [cluster_params(c, POLICY) for c in sample_fleet()[:2]]
    (flat,) = output_parameters(sets, wanted)
    assert [c["name"] for c in flat["clusters"]] == ["prod-eu-1", "prod-us-1"]
    assert flat["input"] == {"flatList": "true", "env": "prod", "n": "3", "x": {"on": "true", "l": ["1", ""]}}
    per_cluster = output_parameters(sets, parse_parameters({"env": "prod"}))
    assert [p["input"] for p in per_cluster] == [{"env": "prod"}, {"env": "prod"}]
    assert "input" not in output_parameters(sets, parse_parameters({}))[0]
    assert output_parameters([], parse_parameters({"flatList": True})) == [
        {"clusters": [], "input": {"flatList": "true"}}
    ]
