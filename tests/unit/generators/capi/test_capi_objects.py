"""CAPI objects as the watch hands them over -> frozen values; a wrong type names the object and field."""

from __future__ import annotations

import pytest

from argocd_lifecycle.generators.capi.objects import (
    ClusterKey,
    InvalidCapiObject,
    parse_cluster,
    parse_control_plane,
    parse_worker_group,
)
from tests.harness.capi import fixture


def test_a_clusterclass_cluster_reads_its_topology_version_and_what_runs() -> None:
    cluster = parse_cluster(fixture("cluster-topology"))
    assert cluster.key == ClusterKey("capi-clusters", "workload-1")
    assert cluster.initialized and not cluster.deleting
    assert cluster.topology_version == "v1.34.2"
    assert cluster.kubeadm_control_plane == "workload-1-8n2xq"
    assert cluster.control_plane_versions == ("v1.34.2",)
    assert cluster.worker_versions == ("v1.34.2",)
    assert cluster.labels["env"] == "sandbox"
    assert cluster.uid.startswith("6f1d2c4e")


def test_a_plain_cluster_has_no_topology_version() -> None:
    cluster = parse_cluster(fixture("cluster-plain"))
    assert cluster.topology_version == ""
    assert cluster.control_plane == ("controlplane.cluster.x-k8s.io", "KubeadmControlPlane", "edge-1-control-plane")


def test_initialised_by_the_condition_alone_or_by_the_contract_field_alone() -> None:
    by_condition = fixture("cluster-plain")
    del by_condition["status"]["initialization"]
    assert parse_cluster(by_condition).initialized
    by_field = fixture("cluster-plain")
    del by_field["status"]["conditions"]
    assert parse_cluster(by_field).initialized
    neither = fixture("cluster-plain")
    neither["status"] = {"conditions": [{"type": "ControlPlaneInitialized", "status": "False", "reason": "x"}]}
    assert not parse_cluster(neither).initialized


def test_a_new_cluster_without_status_is_not_initialised() -> None:
    doc = fixture("cluster-topology")
    del doc["status"]
    cluster = parse_cluster(doc)
    assert not cluster.initialized and cluster.control_plane_versions == ()


def test_a_deletion_timestamp_means_deleting() -> None:
    doc = fixture("cluster-topology")
    doc["metadata"]["deletionTimestamp"] = "2026-01-02T16:00:00Z"
    assert parse_cluster(doc).deleting


def test_a_non_kubeadm_control_plane_is_not_looked_up() -> None:
    doc = fixture("cluster-plain")
    doc["spec"]["controlPlaneRef"] = {"apiGroup": "controlplane.cluster.x-k8s.io", "kind": "K0smotronControlPlane",
                                      "name": "edge-1"}  # fmt: skip
    assert parse_cluster(doc).kubeadm_control_plane == ""


def test_kubeadm_control_plane_versions_and_the_deprecated_single_field() -> None:
    cp = parse_control_plane(fixture("kubeadmcontrolplane-plain"))
    assert (cp.name, cp.version, cp.versions) == ("edge-1-control-plane", "v1.33.4", ("v1.33.4",))
    old = fixture("kubeadmcontrolplane-plain")
    del old["status"]["versions"]
    assert parse_control_plane(old).versions == ("v1.33.4",)


def test_machine_deployment_and_pool_replicas() -> None:
    md = parse_worker_group(fixture("machinedeployment-plain"), "MachineDeployment")
    mp = parse_worker_group(fixture("machinepool-plain"), "MachinePool")
    assert (md.cluster, md.replicas) == ("edge-1", 2)
    assert (mp.kind, mp.cluster, mp.replicas) == ("MachinePool", "edge-1", 1)
    unset = fixture("machinepool-plain")
    del unset["spec"]["replicas"]  # an autoscaler owns it
    assert parse_worker_group(unset, "MachinePool").replicas is None


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("spec", "topology"), "v1.34", "spec.topology must be an object"),
        (("spec", "topology", "version"), 134, "spec.topology.version must be a string"),
        (
            ("status", "controlPlane", "versions"),
            "v1.34.2",
            "status.controlPlane.versions must be a list of at most 100 entries",
        ),
        (("status", "conditions"), {"type": "x"}, "status.conditions must be a list"),
        (("metadata", "labels"), ["env"], "metadata.labels must be an object"),
    ],
)
def test_a_wrong_type_names_the_cluster_and_the_field(path: tuple[str, ...], value: object, field: str) -> None:
    doc = fixture("cluster-topology")
    node = doc
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    with pytest.raises(InvalidCapiObject) as err:
        parse_cluster(doc)
    assert err.value.message == f"Cluster capi-clusters/workload-1: {field}"


@pytest.mark.parametrize("replicas", [-1, True, "3", 10**9, 2.5])
def test_replicas_must_be_a_sane_whole_number(replicas: object) -> None:
    doc = fixture("machinedeployment-plain")
    doc["spec"]["replicas"] = replicas
    with pytest.raises(InvalidCapiObject, match=r"MachineDeployment capi-clusters/edge-1-md-0: spec.replicas"):
        parse_worker_group(doc, "MachineDeployment")


def test_a_status_version_list_is_bounded() -> None:
    doc = fixture("cluster-topology")
    doc["status"]["controlPlane"]["versions"] = [{"version": "v1.34.2"}] * 101
    with pytest.raises(InvalidCapiObject, match="at most 100 entries"):
        parse_cluster(doc)


def test_name_and_namespace_are_required() -> None:
    doc = fixture("cluster-topology")
    del doc["metadata"]["namespace"]
    with pytest.raises(InvalidCapiObject, match=r"metadata\.name and metadata\.namespace are required"):
        parse_cluster(doc)


HOSTILE = {"non-ASCII": "v1.34.\u00e9", "NUL": "v1.34\x00.2", "oversized": "v1." + "9" * 5000}
STRING_FIELDS = [
    ("cluster-topology", ("metadata", "uid")),
    ("cluster-topology", ("metadata", "labels", "env")),
    ("cluster-topology", ("spec", "topology", "version")),
    ("cluster-topology", ("spec", "controlPlaneRef", "apiGroup")),
    ("cluster-topology", ("spec", "controlPlaneRef", "kind")),
    ("cluster-topology", ("spec", "controlPlaneRef", "name")),
    ("cluster-topology", ("status", "controlPlane", "versions", 0, "version")),
    ("cluster-topology", ("status", "workers", "versions", 0, "version")),
    ("kubeadmcontrolplane-plain", ("spec", "version")),
    ("kubeadmcontrolplane-plain", ("status", "versions", 0, "version")),
    ("machinedeployment-plain", ("spec", "clusterName")),
    ("machinepool-plain", ("spec", "clusterName")),
]
PARSERS = {
    "cluster-topology": parse_cluster,
    "kubeadmcontrolplane-plain": parse_control_plane,
    "machinedeployment-plain": lambda doc: parse_worker_group(doc, "MachineDeployment"),
    "machinepool-plain": lambda doc: parse_worker_group(doc, "MachinePool"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize(
    ("stem", "path"), STRING_FIELDS, ids=lambda v: ".".join(map(str, v)) if isinstance(v, tuple) else v
)
def test_hostile_text_in_every_string_field_is_read_or_refused_by_field(stem: str, path: tuple, kind: str) -> None:
    """Non-ASCII text is read as it is; a control character or an oversized string is refused, naming the
    field and never quoting it (the versions reach Events, logs and our Secret's annotations)."""
    doc = fixture(stem)
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = HOSTILE[kind]
    if kind == "non-ASCII":
        PARSERS[stem](doc)
        return
    with pytest.raises(InvalidCapiObject) as err:
        PARSERS[stem](doc)
    assert "none a control character" in err.value.message and "99999" not in err.value.message
