"""The watched CAPI objects: which Clusters each change touches, and when absence may mean deletion."""

from __future__ import annotations

import base64

import pytest

from argocd_lifecycle.generators.capi.objects import ClusterKey
from argocd_lifecycle.generators.capi.store import Kubeconfig, Problem, Store
from tests.harness.capi import fixture, kubeconfig, kubeconfig_secret
from tests.harness.pki import CertificateAuthority

CA = CertificateAuthority("ca")
ADMIN = CA.client("admin", "system:masters")
EDGE = ClusterKey("capi-clusters", "edge-1")
WORKLOAD = ClusterKey("capi-clusters", "workload-1")


def secret_for(name: str) -> dict[str, object]:
    config = kubeconfig(name, "https://127.0.0.1:6443", CA.cert_pem, cert_pem=ADMIN.cert_pem, key_pem=ADMIN.key_pem)
    return kubeconfig_secret(fixture("cluster-plain", name=name), config)


def test_a_relist_touches_every_cluster_it_adds_or_drops() -> None:
    store = Store()
    assert store.clusters.relist("capi-clusters", [fixture("cluster-plain"), fixture("cluster-topology")]) == {
        EDGE, WORKLOAD,
    }  # fmt: skip
    assert store.clusters.relist("capi-clusters", [fixture("cluster-plain")]) == {EDGE, WORKLOAD}
    assert store.cluster(WORKLOAD) is None and store.cluster(EDGE) is not None


def test_a_relist_of_one_namespace_leaves_the_others() -> None:
    store = Store()
    store.clusters.relist("capi-clusters", [fixture("cluster-plain")])
    store.clusters.relist("other", [fixture("cluster-plain", namespace="other")])
    store.clusters.relist("other", [])
    assert store.cluster(EDGE) is not None and store.cluster(ClusterKey("other", "edge-1")) is None


def test_a_control_plane_change_touches_the_cluster_that_references_it() -> None:
    store = Store()
    store.clusters.relist("capi-clusters", [fixture("cluster-plain"), fixture("cluster-topology")])
    assert store.control_planes.upsert(fixture("kubeadmcontrolplane-plain")) == {EDGE}
    assert store.control_planes.upsert(fixture("kubeadmcontrolplane-topology")) == {WORKLOAD}
    cluster = store.cluster(EDGE)
    assert not isinstance(cluster, Problem) and cluster is not None
    cp = store.control_plane(cluster)
    assert cp is not None and cp.version == "v1.33.4"
    # a control plane no Cluster references touches nothing
    assert store.control_planes.upsert(fixture("kubeadmcontrolplane-plain", name="spare")) == set()


def test_worker_groups_belong_to_their_cluster_by_cluster_name() -> None:
    store = Store()
    assert store.deployments.upsert(fixture("machinedeployment-plain")) == {EDGE}
    assert store.pools.upsert(fixture("machinepool-plain")) == {EDGE}
    # a MachineDeployment and a MachinePool may share a name: they are different objects
    assert store.pools.upsert(fixture("machinepool-plain", name="edge-1-md-0")) == {EDGE}
    assert [(g.kind, g.name) for g in store.worker_groups(EDGE)] == [
        ("MachineDeployment", "edge-1-md-0"), ("MachinePool", "edge-1-md-0"), ("MachinePool", "edge-1-mp-0"),
    ]  # fmt: skip
    assert store.deployments.delete(fixture("machinedeployment-plain")) == {EDGE}
    assert [g.kind for g in store.worker_groups(EDGE)] == ["MachinePool", "MachinePool"]


def test_only_kubeconfig_secrets_are_kept() -> None:
    store = Store()
    ca_pair = {
        "metadata": {
            "name": "edge-1-ca",
            "namespace": "capi-clusters",
            "labels": {"cluster.x-k8s.io/cluster-name": "edge-1"},
        },
        "type": "cluster.x-k8s.io/secret",
        "data": {"tls.key": "c2VjcmV0"},
    }  # fmt: skip
    assert store.kubeconfigs.upsert(ca_pair) == set()
    assert store.kubeconfigs.entries == {}  # CAPI's CA key never stays in memory
    # a kubeconfig whose label names another cluster is not that cluster's
    forged = secret_for("edge-1")
    forged["metadata"]["labels"] = {"cluster.x-k8s.io/cluster-name": "workload-1"}  # type: ignore[index]
    assert store.kubeconfigs.upsert(forged) == set() and store.kubeconfigs.entries == {}
    assert store.kubeconfigs.upsert(secret_for("edge-1")) == {EDGE}
    assert isinstance(store.kubeconfig(EDGE), Kubeconfig)


def test_an_unusable_kubeconfig_is_a_problem_of_its_cluster() -> None:
    store = Store()
    bad = secret_for("edge-1")
    bad["data"] = {"value": "bm90IGEga3ViZWNvbmZpZw=="}  # "not a kubeconfig"
    assert store.kubeconfigs.upsert(bad) == {EDGE}
    problem = store.kubeconfig(EDGE)
    assert isinstance(problem, Problem) and problem.message.endswith("data.value is not a kubeconfig")


def test_an_unreadable_cluster_is_kept_as_a_problem_so_nothing_is_decided_on_it() -> None:
    store = Store()
    doc = fixture("cluster-plain")
    doc["spec"]["topology"] = "v1.34"
    assert store.clusters.upsert(doc) == {EDGE}
    assert isinstance(store.cluster(EDGE), Problem)
    assert EDGE in store.cluster_keys()


def test_synced_only_when_clusters_are_watched_and_every_watch_listed_and_none_broken() -> None:
    store = Store()
    assert not store.synced()  # no Clusters watched: absence means nothing
    store.expect("clusters", "capi-clusters")
    store.expect("secrets", "capi-clusters")
    store.clusters.relist("capi-clusters", [])
    assert not store.synced()
    store.kubeconfigs.relist("capi-clusters", [])
    assert store.synced()
    store.kubeconfigs.mark_broken("capi-clusters")
    assert not store.synced()
    store.kubeconfigs.relist("capi-clusters", [])
    assert store.synced()


def test_the_indexes_follow_a_cluster_that_changes_its_control_plane_and_a_group_that_moves() -> None:
    store = Store()
    store.clusters.relist("capi-clusters", [fixture("cluster-plain")])
    planes = [fixture("kubeadmcontrolplane-plain"), fixture("kubeadmcontrolplane-plain", name="edge-1-cp-2")]
    store.control_planes.relist("capi-clusters", planes)
    moved = fixture("cluster-plain")
    moved["spec"]["controlPlaneRef"]["name"] = "edge-1-cp-2"
    store.clusters.upsert(moved)
    assert store.control_planes.upsert(fixture("kubeadmcontrolplane-plain")) == set()  # no longer its
    assert store.control_planes.upsert(fixture("kubeadmcontrolplane-plain", name="edge-1-cp-2")) == {EDGE}
    store.deployments.upsert(fixture("machinedeployment-plain"))
    other = fixture("machinedeployment-plain")
    other["spec"]["clusterName"] = "workload-1"
    assert store.deployments.upsert(other) == {EDGE, WORKLOAD}  # it left one cluster for another
    assert store.worker_groups(EDGE) == [] and [g.name for g in store.worker_groups(WORKLOAD)] == ["edge-1-md-0"]
    store.clusters.delete(moved)
    assert store.control_planes.upsert(fixture("kubeadmcontrolplane-plain", name="edge-1-cp-2")) == set()


SECRET_TEXT = "s3cr3t-\u00e9"
HOSTILE = {"non-ASCII": SECRET_TEXT, "NUL": "s3cr3t\x00x", "oversized": "s3cr3t" + "x" * (300 * 1024)}
KUBECONFIG_FIELDS = {
    "certificate-authority-data": ("clusters", "cluster"),
    "server": ("clusters", "cluster"),
    "tls-server-name": ("clusters", "cluster"),
    "client-certificate-data": ("users", "user"),
    "client-key-data": ("users", "user"),
    "token": ("users", "user"),
}


def _hostile_kubeconfig(field: str, value: str) -> dict[str, object]:
    config = kubeconfig("edge-1", "https://127.0.0.1:6443", CA.cert_pem, cert_pem=ADMIN.cert_pem, key_pem=ADMIN.key_pem)
    entries, body = KUBECONFIG_FIELDS[field]
    config[entries][0][body][field] = value
    return kubeconfig_secret(fixture("cluster-plain", name="edge-1"), config)


def _assert_problem(store: Store, key: ClusterKey) -> str:
    problem = store.kubeconfig(key)
    assert isinstance(problem, Problem), problem
    assert "s3cr3t" not in problem.message and len(problem.message) < 400
    return problem.message


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("field", sorted(KUBECONFIG_FIELDS))
def test_hostile_text_in_every_kubeconfig_field_is_a_problem_and_the_relist_completes(field: str, kind: str) -> None:
    """Issue 24, finding 2: on 6729d94 a non-ASCII character in a *-data field raised a bare ValueError out
    of the relist, so the scope was never listed and nothing was reconciled for anyone."""
    store = Store()
    store.expect("clusters", "capi-clusters")
    store.expect("secrets", "capi-clusters")
    store.clusters.relist("capi-clusters", [fixture("cluster-plain"), fixture("cluster-topology")])
    listing = [_hostile_kubeconfig(field, HOSTILE[kind]), secret_for("workload-1")]
    assert store.kubeconfigs.relist("capi-clusters", listing) == {EDGE, WORKLOAD}
    assert store.synced() and isinstance(store.kubeconfig(WORKLOAD), Kubeconfig)
    _assert_problem(store, EDGE)


@pytest.mark.parametrize("raw", ["\u00e9", "YXBp\u00e9", "YXBp\x00", base64.b64encode(b"\xff\xfe").decode(), 5])
def test_a_kubeconfig_value_that_is_not_base64_of_text_is_a_problem(raw: object) -> None:
    store = Store()
    bad = secret_for("edge-1")
    bad["data"] = {"value": raw}
    store.kubeconfigs.relist("capi-clusters", [bad])
    assert "capi-clusters" in store.kubeconfigs.listed
    assert _assert_problem(store, EDGE).endswith(("is not base64 of UTF-8 text", "data.value is missing"))


def test_a_parser_bug_is_that_objects_problem_and_the_others_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    reported: list[tuple[str, str]] = []

    def broken(obj: object) -> object:
        raise TypeError("quoting s3cr3t")

    store = Store()
    monkeypatch.setattr(store.control_planes, "parse", broken)
    store.control_planes.on_problem = lambda obj, message: reported.append((obj["metadata"]["name"], message))
    store.clusters.relist("capi-clusters", [fixture("cluster-plain")])
    store.control_planes.relist("capi-clusters", [fixture("kubeadmcontrolplane-plain")])
    assert "capi-clusters" in store.control_planes.listed and store.control_planes.problems() == 1
    [(name, message)] = reported
    assert name == "edge-1-control-plane" and "s3cr3t" not in message
    assert message.startswith("KubeadmControlPlane capi-clusters/edge-1-control-plane: cannot be read (TypeError at ")


def test_a_broken_watch_is_timed_and_a_scope_that_never_listed_says_so() -> None:
    store = Store()
    store.expect("clusters", "capi-clusters")
    store.expect("secrets", "capi-clusters")
    store.clusters.relist("capi-clusters", [])
    store.clusters.mark_broken("capi-clusters")
    states = {s.what: s for s in store.scope_states()}
    assert states["clusters in namespace capi-clusters"].listed
    assert states["clusters in namespace capi-clusters"].broken_seconds > 0
    assert not states["secrets in namespace capi-clusters"].listed
    store.clusters.relist("capi-clusters", [])
    assert store.scope_states()[0].broken_seconds == 0
