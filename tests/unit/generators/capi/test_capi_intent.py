"""The mapping from CAPI objects to lifecycle intent: registration, upgrade-to, decommission, workers."""

from __future__ import annotations

from dataclasses import replace

import pytest

from argocd_lifecycle.generators.capi.intent import intent, lowest, scaled_message, upgrade_to
from argocd_lifecycle.generators.capi.objects import (
    CapiCluster,
    ClusterKey,
    ControlPlane,
    WorkerGroup,
    parse_cluster,
    parse_control_plane,
    parse_worker_group,
)
from tests.harness.capi import fixture

KEY = ClusterKey("capi-clusters", "edge-1")


def topology() -> CapiCluster:
    return parse_cluster(fixture("cluster-topology"))


def plain() -> tuple[CapiCluster, ControlPlane, list[WorkerGroup]]:
    groups = [
        parse_worker_group(fixture("machinedeployment-plain"), "MachineDeployment"),
        parse_worker_group(fixture("machinepool-plain"), "MachinePool"),
    ]
    return parse_cluster(fixture("cluster-plain")), parse_control_plane(fixture("kubeadmcontrolplane-plain")), groups


# -- ClusterClass clusters: spec.topology.version ---------------------------------------------------
def test_a_provisioned_clusterclass_cluster_registers_without_an_upgrade() -> None:
    it = intent(topology(), None, [])
    assert it.register and not it.decommission and it.waiting == ""
    assert (it.desired_version, it.current_version, it.upgrade_to) == ("v1.34.2", "v1.34.2", "")


def test_raising_the_topology_version_asks_for_an_upgrade_before_any_machine_rolls() -> None:
    it = intent(replace(topology(), topology_version="v1.35.0"), None, [])
    assert (it.desired_version, it.current_version, it.upgrade_to) == ("v1.35.0", "v1.34.2", "1.35")


def test_the_topology_version_wins_over_the_control_plane_it_generated() -> None:
    cp = ControlPlane("capi-clusters", "workload-1-8n2xq", version="v1.34.2", versions=("v1.34.2",))
    assert intent(replace(topology(), topology_version="v1.35.1"), cp, []).upgrade_to == "1.35"


def test_the_upgrade_lasts_until_the_workers_run_the_new_minor_too() -> None:
    rolling = replace(topology(), topology_version="v1.35.0", control_plane_versions=("v1.35.0",),
                      worker_versions=("v1.34.2", "v1.35.0"))  # fmt: skip
    assert intent(rolling, None, []).upgrade_to == "1.35"
    done = replace(rolling, worker_versions=("v1.35.0",))
    assert intent(done, None, []).upgrade_to == ""


def test_a_patch_release_is_not_an_upgrade_phase() -> None:
    # the lifecycle machine records a control-plane patch upgrade on its own (ClusterUpgraded)
    assert intent(replace(topology(), topology_version="v1.34.9"), None, []).upgrade_to == ""


def test_a_lower_desired_version_asks_for_nothing() -> None:
    assert intent(replace(topology(), topology_version="v1.33.0"), None, []).upgrade_to == ""


# -- plain clusters: the KubeadmControlPlane's spec.version ---------------------------------------
def test_a_plain_cluster_takes_the_desired_version_from_its_kubeadm_control_plane() -> None:
    cluster, cp, groups = plain()
    it = intent(cluster, cp, groups)
    assert (it.desired_version, it.current_version, it.upgrade_to) == ("v1.33.4", "v1.33.4", "")
    it = intent(cluster, replace(cp, version="v1.34.0"), groups)
    assert (it.desired_version, it.upgrade_to) == ("v1.34.0", "1.34")


def test_without_cluster_status_versions_the_control_plane_reports_what_runs() -> None:
    cluster, cp, _ = plain()
    bare = replace(cluster, control_plane_versions=(), worker_versions=())
    assert intent(bare, replace(cp, version="v1.34.0", versions=("v1.33.4",)), []).current_version == "v1.33.4"


def test_without_any_reported_version_the_probed_one_counts() -> None:
    cluster, cp, _ = plain()
    bare = replace(cluster, control_plane_versions=(), worker_versions=())
    it = intent(bare, replace(cp, version="v1.34.0", versions=()), [], probed_version="1.33.4")
    assert (it.current_version, it.upgrade_to) == ("1.33.4", "1.34")


def test_a_plain_cluster_without_a_known_control_plane_has_no_desired_version() -> None:
    cluster, _, _ = plain()
    it = intent(cluster, None, [])
    assert it.register and it.desired_version == "" and it.upgrade_to == ""


# -- registration and deletion -----------------------------------------------------------------------
def test_a_cluster_whose_control_plane_is_not_initialised_waits() -> None:
    it = intent(replace(topology(), initialized=False), None, [])
    assert not it.register and it.waiting == "the control plane is not initialised yet"


def test_a_deletion_timestamp_decommissions_and_drops_the_upgrade() -> None:
    it = intent(replace(topology(), deleting=True, topology_version="v1.35.0"), None, [])
    assert it.decommission and not it.register and it.upgrade_to == ""
    assert it.waiting == "the Cluster is being deleted"


# -- MachineDeployment / MachinePool ---------------------------------------------------------------
def test_workers_are_the_sum_of_machine_deployment_and_pool_replicas() -> None:
    cluster, cp, groups = plain()
    it = intent(cluster, cp, groups)
    assert it.workers == 3
    assert it.groups == (("MachineDeployment", "edge-1-md-0", 2), ("MachinePool", "edge-1-mp-0", 1))


def test_groups_without_replicas_are_not_counted_and_none_means_unknown() -> None:
    cluster, cp, _ = plain()
    autoscaled = WorkerGroup("MachinePool", "capi-clusters", "edge-1-mp-0", "edge-1", None)
    assert intent(cluster, cp, [autoscaled]).workers is None
    assert intent(cluster, cp, []).workers is None
    assert intent(cluster, cp, [replace(autoscaled, replicas=0)]).workers == 0


def test_the_scaled_message_names_before_after_and_which_group_moved() -> None:
    cluster, cp, groups = plain()
    before = intent(cluster, cp, groups)
    grown = intent(cluster, cp, [replace(groups[0], replicas=5), groups[1]])
    assert scaled_message(3, grown, before.groups) == "workers 3 -> 6 (MachineDeployment edge-1-md-0 2 -> 5)"
    shrunk = intent(cluster, cp, [groups[0]])
    assert scaled_message(3, shrunk, before.groups) == "workers 3 -> 2 (MachinePool edge-1-mp-0 1 -> 0 (gone))"
    # after a restart the groups of before are not known: the totals still are (from the Secret)
    assert scaled_message(3, grown) == "workers 3 -> 6"


@pytest.mark.parametrize(
    ("desired", "current", "expected"),
    [("v1.35.0", "v1.34.2", "1.35"), ("v1.35.0", "1.34", "1.35"), ("v2.0.0", "v1.35.0", "2.0"),
     ("v1.35.0", "v1.35.0", ""), ("", "v1.34.2", ""), ("v1.35.0", "", ""), ("latest", "v1.34.2", "")],
)  # fmt: skip
def test_upgrade_to_compares_minors(desired: str, current: str, expected: str) -> None:
    assert upgrade_to(desired, current) == expected


def test_lowest_skips_what_does_not_parse() -> None:
    assert lowest(["v1.35.0", "garbage", "v1.34.10", "v1.34.9"]) == "v1.34.9"
    assert lowest([]) == "" and lowest(["x"]) == ""


def test_the_key_of_a_plain_cluster() -> None:
    assert plain()[0].key == KEY
