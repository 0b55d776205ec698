"""The Cluster API source against a real kube-apiserver + etcd holding Cluster API v1.14.2's own CRDs.

The tests play CAPI's controllers: they write the fixture objects, their status through the status
subresource and the ``<cluster>-kubeconfig`` Secret, here pointing at a loopback HTTPS cluster the
prober can reach. ``generator serve``'s fleet runs with ``--capi`` settings through ``start_fleet``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from argocd_lifecycle.generators.capi.names import CLUSTERS, Resource
from argocd_lifecycle.generators.capi.servers import ServerPolicy, ServerRule
from argocd_lifecycle.generators.capi.settings import CapiSettings
from argocd_lifecycle.generators.capi.source import served
from argocd_lifecycle.kube.client import KubeSettings, connect
from argocd_lifecycle.model import Annotation
from tests.harness import capi
from tests.harness.kubeapi import Cluster, start_single
from tests.harness.procs import HarnessError, Supervisor
from tests.integration.generators.harness import by_name, eventually, eventually_read, phase_of, settings, started
from tests.integration.generators.loopback import LoopbackCluster

pytestmark = pytest.mark.upstream

NS = capi.NAMESPACE
CHECKS = "capi-fixture-checks"  # apart, so that the checked objects are nobody's workers
GROUP = "/apis/cluster.x-k8s.io/v1beta2/namespaces/" + NS
OURS = "capi.capi-clusters.workload-1"
#: the workload clusters here are loopback servers, which the generator refuses unless told
LOOPBACK = ServerPolicy(allow=(ServerRule.parse("127.0.0.0/8", where="test"),))


def _argo_crd(kind: str) -> dict[str, Any]:
    plural = kind.lower() + "s"
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.argoproj.io"},
        "spec": {
            "group": "argoproj.io",
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
            "versions": [{"name": "v1alpha1", "served": True, "storage": True, "schema": schema}],
        },
    }


@pytest.fixture(scope="module")
def management(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("capi-apiserver")
    sup = Supervisor(folder / "logs")
    try:
        cluster = start_single(sup, folder, "management")
        with cluster.http() as http:
            for ns in ("argocd", NS, CHECKS):
                http.post("/api/v1/namespaces", json={"metadata": {"name": ns}}).raise_for_status()
            for kind in ("Application", "ApplicationSet"):  # what the rest of the fleet watches
                http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=_argo_crd(kind))
            capi.install_crds(http)
    except HarnessError as exc:
        sup.stop_all()
        pytest.fail(f"kube-apiserver/etcd with the Cluster API CRDs did not start: {exc}", pytrace=False)
    try:
        yield cluster
    finally:
        sup.stop_all()


def _plural(doc: dict[str, Any]) -> str:
    group, version = doc["apiVersion"].split("/")
    plural = doc["kind"].lower() + ("es" if doc["kind"].endswith("s") else "s")
    return f"/apis/{group}/{version}/namespaces/{doc['metadata']['namespace']}/{plural}"


def create(http: httpx.Client, doc: dict[str, Any]) -> dict[str, Any]:
    """Create an object as CAPI would, then write its status through the status subresource."""
    status = doc.pop("status", None)
    doc["metadata"].pop("uid", None)  # the API server assigns it
    response = http.post(_plural(doc), json=doc)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    if status is not None:
        created = write_status(http, created, status)
    return created


def write_status(http: httpx.Client, obj: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    url = f"{_plural(obj)}/{obj['metadata']['name']}/status"
    response = http.patch(url, json={"status": status}, headers={"Content-Type": "application/merge-patch+json"})
    assert response.status_code == 200, response.text
    return dict(response.json())


def merge(http: httpx.Client, obj: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    url = f"{_plural(obj)}/{obj['metadata']['name']}"
    response = http.patch(url, json=patch, headers={"Content-Type": "application/merge-patch+json"})
    assert response.status_code == 200, response.text
    return dict(response.json())


def _subset(want: Any, have: Any, path: str = "") -> list[str]:
    """Where ``have`` lacks what ``want`` holds (a field the CRD schema pruned, i.e. misspelt)."""
    if isinstance(want, dict):
        if not isinstance(have, dict):
            return [path]
        return [p for k, v in want.items() for p in _subset(v, have.get(k), f"{path}.{k}")]
    if isinstance(want, list):
        if not isinstance(have, list) or len(have) != len(want):
            return [path]
        return [p for i, (w, h) in enumerate(zip(want, have, strict=True)) for p in _subset(w, h, f"{path}[{i}]")]
    return [] if want == have else [path]


@pytest.mark.parametrize("stem", sorted(p.stem for p in capi.FIXTURES.glob("*.yaml")))
def test_every_fixture_is_a_valid_object_of_the_real_crds_with_no_field_pruned(management: Cluster, stem: str) -> None:
    doc = capi.fixture(stem, namespace=CHECKS)
    want = {k: doc.get(k) for k in ("spec", "status") if k in doc}
    doc["metadata"].pop("finalizers", None)
    with management.http() as http:
        created = create(http, doc)
        assert _subset(want, created) == [], f"{stem}: fields the v1beta2 schema does not know"


def test_an_unserved_kind_is_reported_as_such(management: Cluster) -> None:
    kube = connect(KubeSettings(str(management.kubeconfig)))
    assert served(kube, CLUSTERS)
    assert not served(kube, Resource("cluster.x-k8s.io", "v1beta2", "widgets", "Widget"))
    assert not served(kube, Resource("example.com", "v1", "widgets", "Widget"))


def test_capi_drives_registration_upgrade_scaling_and_departure(management: Cluster, tmp_path: Path) -> None:
    kube = connect(KubeSettings(str(management.kubeconfig)))
    core = kube.core
    edge = LoopbackCluster(tmp_path / "pki", "workload-1")
    second = LoopbackCluster(tmp_path / "pki-2", "edge-2").start()
    edge.sim.upgrade("v1.34.2", ["v1.34.2"] * 2)
    edge.start()
    serve = replace(settings(kubeconfig=management.kubeconfig, leader_election=False),
                    capi=CapiSettings((NS,), ("env", "team.example.com/*"), LOOPBACK))  # fmt: skip

    def ours() -> dict[str, Any] | None:
        listing = kube.call("list", core.list_namespaced_secret, "argocd")
        return next((s for s in listing["items"] if s["metadata"]["name"] == OURS), None)

    def annotations() -> dict[str, str]:
        return dict(((ours() or {}).get("metadata") or {}).get("annotations") or {})

    def events(namespace: str, kind: str, reason: str) -> list[dict[str, Any]]:
        """The Events of workload-1's CAPI Cluster (``kind`` Cluster) or of our Secret (``kind`` Secret)."""
        name = "workload-1" if kind == "Cluster" else OURS
        listing = kube.call("list events", core.list_namespaced_event, namespace)
        return [e for e in listing["items"] if e["reason"] == reason and e["involvedObject"]["kind"] == kind
                and e["involvedObject"]["name"] == name]  # fmt: skip

    async def story() -> None:
        fleet, _ = await started(serve)
        http = management.http()
        try:
            http.post(GROUP + "/clusterclasses", json=capi.fixture("clusterclass")).raise_for_status()
            cluster_doc = capi.fixture("cluster-topology")
            ready_status = cluster_doc.pop("status")
            cluster = create(http, cluster_doc)  # no status yet: the control plane is not initialised
            create(http, capi.fixture("kubeadmcontrolplane-topology"))
            md = create(http, capi.fixture("machinedeployment-topology"))
            config = capi.kubeconfig("workload-1", edge.url, edge.ca.pem, token=edge.sim.token)
            kubeconfig = capi.kubeconfig_secret(cluster, config)
            kube.call("create", core.create_namespaced_secret, NS, kubeconfig)
            # a second, initialised Cluster proves the reconciler ran while workload-1 waited
            other = capi.fixture("cluster-plain", name="edge-2")
            other["spec"]["controlPlaneRef"]["name"] = "absent"
            other = create(http, other)
            # its own server: a second Secret for workload-1's would be refused (servers are identities)
            other_config = capi.kubeconfig("edge-2", second.url, second.ca.pem, token=second.sim.token)
            kube.call("create", core.create_namespaced_secret, NS, capi.kubeconfig_secret(other, other_config))
            await eventually(lambda: "edge-2.capi-clusters" in by_name(fleet), "edge-2 registered", timeout=30)
            assert ours() is None, "registered before the control plane was initialised"

            # CAPI initialises the control plane: the Secret appears, the gate passes
            started_at = time.monotonic()
            cluster = write_status(http, cluster, ready_status)
            await eventually_read(ours, "the Argo CD cluster Secret", timeout=30)
            await eventually(lambda: phase_of(fleet, "workload-1.capi-clusters") == "Ready", "Ready", timeout=60)
            print(f"initialised -> Ready: {time.monotonic() - started_at:.1f}s")
            secret = ours()
            assert secret is not None
            assert secret["metadata"]["labels"] == {
                "argocd.argoproj.io/secret-type": "cluster",
                "argocd-lifecycle.io/managed-by": "cluster-api",
                "env": "sandbox",
                "team.example.com/owner": "payments",
            }
            assert annotations()["argocd-lifecycle.io/capi-cluster"] == "capi-clusters/workload-1"
            assert annotations()["argocd-lifecycle.io/capi-workers"] == "2"
            state = by_name(fleet)["workload-1.capi-clusters"]
            assert state.server == edge.url and state.git_version == "v1.34.2"
            await eventually_read(lambda: events(NS, "Cluster", "ClusterReady"), "ClusterReady on the CAPI Cluster")
            registered = events(NS, "Cluster", "ClusterRegistered")
            assert registered and registered[0]["involvedObject"]["uid"] == cluster["metadata"]["uid"]
            assert registered[0]["involvedObject"]["apiVersion"] == "cluster.x-k8s.io/v1beta2"
            assert f"argocd/{OURS}" in registered[0]["message"]

            # the desired version is raised: upgrade-to before any machine rolls, then Upgrading
            merge(http, cluster, {"spec": {"topology": {"version": "v1.35.0"}}})
            await eventually_read(lambda: annotations().get(Annotation.UPGRADE_TO) == "1.35", "upgrade-to 1.35")
            await eventually(lambda: phase_of(fleet, "workload-1.capi-clusters") == "Upgrading", "Upgrading")
            assert by_name(fleet)["workload-1.capi-clusters"].upgrade_to == "1.35"
            await eventually_read(lambda: events(NS, "Cluster", "ClusterUpgradeStarted"), "mirrored UpgradeStarted")

            # workers scaled: ClusterScaled with the counts, on both objects
            merge(http, md, {"spec": {"replicas": 4}})
            scaled = await eventually_read(lambda: events("argocd", "Secret", "ClusterScaled"), "ClusterScaled")
            assert scaled[0]["message"] == "workers 2 -> 4 (MachineDeployment workload-1-md-0-7xk2p 2 -> 4)"
            await eventually_read(lambda: events(NS, "Cluster", "ClusterScaled"), "ClusterScaled on the Cluster")
            assert annotations()["argocd-lifecycle.io/capi-workers"] == "4"

            # scaled while no generator ran: the next one compares with what the Secret recorded
            await fleet.aclose()
            merge(http, md, {"spec": {"replicas": 5}})
            fleet, _ = await started(serve)

            def restarted_scale() -> list[dict[str, Any]]:
                return [e for e in events("argocd", "Secret", "ClusterScaled") if e["message"] == "workers 4 -> 5"]

            await eventually_read(restarted_scale, "ClusterScaled after the restart", timeout=30)
            registered_again = events("argocd", "Secret", "ClusterRegistered")
            assert [e["count"] for e in registered_again] == [1]  # resumed from the Secret, not registered again

            # labels follow the CAPI Cluster; rotated credentials follow the kubeconfig
            merge(http, cluster, {"metadata": {"labels": {"env": "prod", "team.example.com/owner": None}}})
            await eventually_read(lambda: (ours() or {})["metadata"]["labels"].get("env") == "prod", "env=prod")
            assert "team.example.com/owner" not in (ours() or {})["metadata"]["labels"]
            edge.sim.token = "rotated-token"
            rotated = capi.kubeconfig_secret(cluster, capi.kubeconfig("workload-1", edge.url, edge.ca.pem,
                                                                      token="rotated-token"))  # fmt: skip
            kube.call("replace", core.replace_namespaced_secret, kubeconfig["metadata"]["name"], NS, rotated)
            await eventually_read(
                lambda: events("argocd", "Secret", "ClusterCredentialsRotated"), "credentials rotated"
            )

            # CAPI deletes the Cluster: Decommissioning first, the Secret stays while the kubeconfig does
            http.delete(f"{GROUP}/clusters/workload-1").raise_for_status()
            await eventually_read(lambda: annotations().get(Annotation.DECOMMISSION) == "true", "decommission")
            await eventually(
                lambda: phase_of(fleet, "workload-1.capi-clusters") == "Decommissioning", "Decommissioning"
            )
            await eventually_read(lambda: annotations().get(Annotation.PHASE) == "Decommissioning", "phase written")
            assert Annotation.UPGRADE_TO not in annotations()
            await asyncio.sleep(1)
            assert ours() is not None, "deleted while CAPI still held the kubeconfig"
            kube.call("delete", core.delete_namespaced_secret, kubeconfig["metadata"]["name"], NS)
            await eventually_read(lambda: ours() is None, "our Secret deleted after the kubeconfig", timeout=30)
            await eventually(lambda: "workload-1.capi-clusters" not in by_name(fleet), "departed")
            await eventually_read(lambda: events(NS, "Cluster", "ClusterRemoved"), "ClusterRemoved on the CAPI Cluster")
            merge(http, cluster, {"metadata": {"finalizers": None}})  # CAPI lets the Cluster go
        finally:
            http.close()
            await fleet.aclose()
            edge.stop()
            second.stop()

    asyncio.run(story())


def test_a_secret_we_did_not_create_is_never_touched(management: Cluster, tmp_path: Path) -> None:
    kube = connect(KubeSettings(str(management.kubeconfig)))
    core = kube.core
    edge = LoopbackCluster(tmp_path / "pki", "edge-1").start()
    theirs = edge.secret(secret_name="capi.capi-clusters.edge-1", labels={"hand": "written"})
    kube.call("create", core.create_namespaced_secret, "argocd", theirs)
    before = kube.call("read", core.read_namespaced_secret, "capi.capi-clusters.edge-1", "argocd")
    serve = replace(settings(kubeconfig=management.kubeconfig, leader_election=False, identity="b"),
                    capi=CapiSettings((NS,), ("env",), LOOPBACK))  # fmt: skip

    def warnings(reason: str) -> list[dict[str, Any]]:
        listing = kube.call("list events", core.list_namespaced_event, NS)
        return [e for e in listing["items"] if e["reason"] == reason and e["involvedObject"]["name"] == "edge-1"]

    async def story() -> None:
        fleet, _ = await started(serve)
        http = management.http()
        try:
            cluster = create(http, capi.fixture("cluster-plain"))
            config = capi.kubeconfig("edge-1", edge.url, edge.ca.pem, token=edge.sim.token)
            kube.call("create", core.create_namespaced_secret, NS, capi.kubeconfig_secret(cluster, config))
            conflict = await eventually_read(lambda: warnings("ClusterSecretConflict"), "the conflict Warning")
            assert conflict[0]["type"] == "Warning" and "not managed by argocd-lifecycle" in conflict[0]["message"]
            http.delete(f"{GROUP}/clusters/edge-1").raise_for_status()  # not even a deletion moves it
            await asyncio.sleep(2)
            after = kube.call("read", core.read_namespaced_secret, "capi.capi-clusters.edge-1", "argocd")
            phase_keys = {Annotation.PHASE, Annotation.PHASE_SINCE, Annotation.KUBERNETES_VERSION,
                          "argocd-lifecycle.io/admitted"}  # fmt: skip
            strip = lambda s: {k: v for k, v in (s["metadata"].get("annotations") or {}).items() if k not in phase_keys}  # noqa: E731
            assert after["data"] == before["data"] and after["metadata"]["labels"] == before["metadata"]["labels"]
            assert strip(after) == strip(before)  # only the lifecycle machine's own phase annotations moved
            merge(http, cluster, {"metadata": {"finalizers": None}})
        finally:
            http.close()
            await fleet.aclose()
            edge.stop()

    asyncio.run(story())


def test_an_unusable_kubeconfig_is_a_warning_on_the_cluster_and_no_secret(management: Cluster) -> None:
    kube = connect(KubeSettings(str(management.kubeconfig)))
    core = kube.core
    serve = replace(settings(kubeconfig=management.kubeconfig, leader_election=False, identity="c"),
                    capi=CapiSettings((NS,), (), LOOPBACK))  # fmt: skip

    async def story() -> None:
        fleet, _ = await started(serve)
        http = management.http()
        try:
            cluster = create(http, capi.fixture("cluster-plain", name="exec-1"))
            config = capi.kubeconfig("exec-1", "https://127.0.0.1:1", b"")
            config["users"][0]["user"] = {"exec": {"command": "/bin/sh", "args": ["-c", "id"], "apiVersion": "x"}}
            kube.call("create", core.create_namespaced_secret, NS, capi.kubeconfig_secret(cluster, config))

            def warned() -> list[dict[str, Any]]:
                listing = kube.call("list events", core.list_namespaced_event, NS)
                return [e for e in listing["items"]
                        if e["reason"] == "InvalidKubeconfig" and e["involvedObject"]["name"] == "exec-1"]  # fmt: skip

            event = (await eventually_read(warned, "the InvalidKubeconfig Warning"))[0]
            assert "exec (an exec credential plugin) is not supported" in event["message"]
            listing = kube.call("list", core.list_namespaced_secret, "argocd")
            assert "capi.capi-clusters.exec-1" not in {s["metadata"]["name"] for s in listing["items"]}
            merge(http, cluster, {"metadata": {"finalizers": None}})
        finally:
            http.close()
            await fleet.aclose()

    asyncio.run(story())


def _warnings(kube: Any, reason: str, name: str, namespace: str = NS) -> list[dict[str, Any]]:
    listing = kube.call("list events", kube.core.list_namespaced_event, namespace)
    return [e for e in listing["items"] if e["reason"] == reason and e["involvedObject"]["name"] == name]


def _capi_secrets(kube: Any) -> set[str]:
    listing = kube.call("list", kube.core.list_namespaced_secret, "argocd")
    return {s["metadata"]["name"] for s in listing["items"] if s["metadata"]["name"].startswith("capi.")}


def test_kubeconfigs_naming_the_management_cluster_or_another_clusters_server_are_never_registered(
    management: Cluster, tmp_path: Path
) -> None:
    """Finding 1: a tenant's kubeconfig naming https://kubernetes.default.svc with a client certificate and no
    token became a cluster Secret, which Argo CD answers with its own account (rest.InClusterConfig()); one
    naming the management API server, or copying a hand-written cluster's server, was registered as well."""
    kube = connect(KubeSettings(str(management.kubeconfig)))
    core = kube.core
    edge = LoopbackCluster(tmp_path / "pki", "edge-hand").start()
    kube.call("create", core.create_namespaced_secret, "argocd", edge.secret(secret_name="cluster-edge-hand"))
    # a hand-written cluster already named as Argo CD would name CAPI's Cluster "squat" of this namespace
    named = edge.secret(secret_name="cluster-named-hand")
    named["stringData"].update(name=f"squat.{NS}", server="https://10.255.255.1:6443")
    kube.call("create", core.create_namespaced_secret, "argocd", named)
    serve = replace(settings(kubeconfig=management.kubeconfig, leader_election=False, identity="d"),
                    capi=CapiSettings((NS,), ("env",), LOOPBACK))  # fmt: skip
    cert = management.admin  # any client certificate: with it and no token Argo CD used its own account
    attacks = {
        "inside-1": ("https://kubernetes.default.svc", "in-cluster API server (Argo CD would use its own account)"),
        "inside-2": ("https://KUBERNETES.default.svc.cluster.local:443/", "in-cluster API server"),
        "inside-3": (management.server, "the server is the management cluster's API server"),
        # the hand-written cluster's server, spelled otherwise (scheme case, a trailing slash)
        "copycat": (
            edge.url.replace("https://", "HTTPS://") + "/",
            "also the server of cluster Secret argocd/cluster-edge-hand",
        ),
        "squat": ("https://127.0.0.2:6443", "the name is also the name of cluster Secret argocd/cluster-named-hand"),
    }

    async def story() -> None:
        fleet, _ = await started(serve)
        http = management.http()
        created = []
        try:
            for name, (server, _) in attacks.items():
                cluster = create(http, capi.fixture("cluster-plain", name=name))
                created.append(cluster)
                config = capi.kubeconfig(name, server, edge.ca.pem, cert_pem=cert.cert_pem, key_pem=cert.key_pem)
                kube.call("create", core.create_namespaced_secret, NS, capi.kubeconfig_secret(cluster, config))
            for name, (_, why) in attacks.items():
                found = await eventually_read(
                    lambda n=name: _warnings(kube, "ClusterServerRefused", n), f"{name} refused"
                )
                assert found[0]["type"] == "Warning" and why in found[0]["message"], found[0]["message"]
                assert "no cluster Secret is written" in found[0]["message"]
            assert not {f"capi.{NS}.{name}" for name in attacks} & _capi_secrets(kube)
            assert by_name(fleet)[f"squat.{NS}"].secret_name == "cluster-named-hand"
        finally:
            for cluster in created:
                merge(http, cluster, {"metadata": {"finalizers": None}})
                http.delete(f"{GROUP}/clusters/{cluster['metadata']['name']}")
                kube.call("delete", core.delete_namespaced_secret, cluster["metadata"]["name"] + "-kubeconfig", NS)
            for hand in ("cluster-edge-hand", "cluster-named-hand"):
                kube.call("delete", core.delete_namespaced_secret, hand, "argocd")
            http.close()
            await fleet.aclose()
            edge.stop()

    asyncio.run(story())


def test_a_hand_written_secret_for_our_server_stops_our_updates_until_it_goes(
    management: Cluster, tmp_path: Path
) -> None:
    """Ours came first; then someone registers the same server by hand. Ours is neither deleted (its
    Applications would go) nor updated (Argo CD's choice between the two would stay the tenant's): both the
    CAPI Cluster and our Secret say so, and updates resume once the hand-written Secret is gone."""
    kube = connect(KubeSettings(str(management.kubeconfig)))
    core = kube.core
    edge = LoopbackCluster(tmp_path / "pki", "edge-3").start()
    serve = replace(settings(kubeconfig=management.kubeconfig, leader_election=False, identity="e"),
                    capi=CapiSettings((NS,), ("env",), LOOPBACK))  # fmt: skip
    ours = "capi.capi-clusters.edge-3"

    def labels() -> dict[str, str]:
        return dict(kube.call("read", core.read_namespaced_secret, ours, "argocd")["metadata"].get("labels") or {})

    async def story() -> None:
        fleet, _ = await started(serve)
        http = management.http()
        cluster = create(http, capi.fixture("cluster-plain", name="edge-3"))
        try:
            config = capi.kubeconfig("edge-3", edge.url, edge.ca.pem, token=edge.sim.token)
            kube.call("create", core.create_namespaced_secret, NS, capi.kubeconfig_secret(cluster, config))
            await eventually_read(lambda: ours in _capi_secrets(kube), "our Secret")
            # the same server, spelled otherwise (case, default port written out, a trailing slash)
            hand = edge.secret(secret_name="cluster-edge-3-hand")
            hand["stringData"].update(name="edge-3-by-hand", server=edge.url + "/")
            kube.call("create", core.create_namespaced_secret, "argocd", hand)
            conflict = await eventually_read(lambda: _warnings(kube, "ClusterServerConflict", "edge-3"), "the conflict")
            assert (
                "is no longer updated: the server is also the server of cluster Secret argocd/cluster-edge-3-hand"
                in (conflict[0]["message"])
            )
            on_secret = await eventually_read(
                lambda: _warnings(kube, "ClusterServerConflict", ours, "argocd"), "the conflict on our Secret"
            )
            assert on_secret[0]["type"] == "Warning" and on_secret[0]["involvedObject"]["kind"] == "Secret"
            cluster = merge(http, cluster, {"metadata": {"labels": {"env": "frozen"}}})
            await asyncio.sleep(3)
            assert labels().get("env") != "frozen" and ours in _capi_secrets(kube)  # neither updated nor deleted
            kube.call("delete", core.delete_namespaced_secret, "cluster-edge-3-hand", "argocd")
            await eventually_read(lambda: labels().get("env") == "frozen", "updates once the conflict is gone")
        finally:
            merge(http, cluster, {"metadata": {"finalizers": None}})
            http.delete(f"{GROUP}/clusters/edge-3")
            kube.call("delete", core.delete_namespaced_secret, "edge-3-kubeconfig", NS)
            http.close()
            await fleet.aclose()
            edge.stop()
            with contextlib.suppress(Exception):
                kube.call("delete", core.delete_namespaced_secret, ours, "argocd")

    asyncio.run(story())
