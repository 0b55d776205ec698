"""Cluster API drives the lifecycle, on the real loop: CAPI's CRDs on the management kube-apiserver, a CAPI
Cluster whose kubeconfig points at the downstream kube-apiserver, ``generator serve --capi``.

CAPI's controllers cannot create machines here, so the test does what they would, in their order:
the topology controller's objects, the kubeconfig Secret, the status that says the control plane is
initialised; later a higher ``spec.topology.version``, more replicas, and the deletion (the Cluster's
finalizer holds it until "CAPI" has deleted the kubeconfig). The tests run in file order on the
session-wide loop, before the one-cluster loop of test_e2e_loop.py, and leave nothing of theirs behind.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness import argocd, capi
from tests.harness.loop import Loop, annotations, cluster_phase_of, parse_time, record, synced
from tests.harness.procs import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

NS = capi.NAMESPACE
CLUSTER = "workload-1"
NAME = f"{CLUSTER}.{NS}"  # the Argo CD cluster name
SECRET = f"capi.{NS}.{CLUSTER}"
APPSET = "capi-guestbook"
APP = f"{APPSET}-{NAME}"
APP_NAMESPACE = "capi-guestbook"
V1B2 = "cluster.x-k8s.io/v1beta2"
KCP_API = "controlplane.cluster.x-k8s.io/v1beta2"


class Capi:
    """The test as Cluster API's controllers, and what the generator made of it."""

    def __init__(self, loop: Loop) -> None:
        self.loop, self.mgmt, self.down = loop, loop.platform.mgmt, loop.platform.down
        self.downstream = loop.platform.downstream

    def create(self, stem: str) -> dict[str, Any]:
        doc = capi.fixture(stem)
        status = doc.pop("status", None)
        doc["metadata"].pop("uid", None)
        created = self.mgmt.apply(doc)
        if status is not None:
            self.status(doc["apiVersion"], doc["kind"], doc["metadata"]["name"], status)
        return created

    def status(self, api_version: str, kind: str, name: str, status: dict[str, Any]) -> None:
        resource = self.mgmt.resource(api_version, kind).subresources["status"]
        resource.patch(name=name, namespace=NS, body={"status": status},
                       content_type="application/merge-patch+json")  # fmt: skip

    def patch(self, api_version: str, kind: str, name: str, body: dict[str, Any]) -> None:
        self.mgmt.merge_patch(api_version, kind, name, body, namespace=NS)

    def kubeconfig(self, cluster: dict[str, Any]) -> None:
        d = self.downstream
        config = capi.kubeconfig(CLUSTER, d.server, d.ca.cert_pem, cert_pem=d.admin.cert_pem, key_pem=d.admin.key_pem)
        self.mgmt.apply(capi.kubeconfig_secret(cluster, config))

    # -- what the generator did ------------------------------------------------------------------
    def secret(self) -> dict[str, Any] | None:
        return self.mgmt.get("v1", "Secret", SECRET, argocd.NAMESPACE)

    def annotation(self, key: str) -> str:
        return annotations(self.secret() or {}).get(key, "")

    def phase(self) -> str:
        return self.annotation("argocd-lifecycle.io/phase")

    def app(self) -> dict[str, Any] | None:
        return self.mgmt.get("argoproj.io/v1alpha1", "Application", APP, argocd.NAMESPACE)

    def events(self, namespace: str, kind: str, reason: str) -> list[dict[str, Any]] | None:
        name = CLUSTER if kind == "Cluster" else SECRET
        found = [e for e in self.mgmt.list("v1", "Event", namespace)
                 if e["reason"] == reason and e["involvedObject"]["kind"] == kind
                 and e["involvedObject"]["name"] == name]  # fmt: skip
        return found or None

    def lifecycle(self, reason: str) -> list[dict[str, Any]] | None:
        bodies = [m.body.get("event") or {} for m in self.loop.lifecycle_messages()]
        found = [b for b in bodies if b.get("reason") == reason and b.get("cluster") == NAME]
        return found or None


def applicationset(loop: Loop) -> dict[str, Any]:
    """The example ApplicationSet, for the clusters CAPI labels env=sandbox, into its own namespace."""
    appset = loop.applicationset()
    appset["metadata"]["name"] = APPSET
    spec = appset["spec"]
    spec["generators"][0]["plugin"]["input"]["parameters"]["labelSelector"] = {"matchLabels": {"env": "sandbox"}}
    spec["template"]["metadata"]["name"] = APPSET + "-{{ .nameNormalized }}"
    spec["template"]["metadata"]["annotations"] = {
        k: v for k, v in spec["template"]["metadata"]["annotations"].items() if k.startswith("argocd-lifecycle.io/")
    }  # no notification subscriptions: the alert counts of the later scenarios stay theirs
    spec["template"]["spec"]["destination"]["namespace"] = APP_NAMESPACE
    return appset


#: what the test creates in the CAPI namespace, deleted again at the end whatever happened
CREATED = [(V1B2, "Cluster", CLUSTER), (V1B2, "MachineDeployment", "workload-1-md-0-7xk2p"),
           (KCP_API, "KubeadmControlPlane", "workload-1-8n2xq"), (V1B2, "ClusterClass", "quick-start"),
           ("v1", "Secret", f"{CLUSTER}-kubeconfig")]  # fmt: skip


@pytest.fixture(scope="module")
def world(loop: Loop) -> Iterator[Capi]:
    c = Capi(loop)
    c.mgmt.refresh_discovery()  # the CAPI kinds were installed after the client first looked
    c.mgmt.apply(applicationset(loop))
    try:
        yield c
    finally:  # the loop scenarios after this file find the management cluster as they expect it
        c.mgmt.delete("argoproj.io/v1alpha1", "ApplicationSet", APPSET, argocd.NAMESPACE)
        for api_version, kind, name in CREATED:
            if kind == "Cluster" and c.mgmt.get(api_version, kind, name, NS) is not None:
                c.patch(api_version, kind, name, {"metadata": {"finalizers": None}})
            c.mgmt.delete(api_version, kind, name, NS)
        c.mgmt.delete("v1", "Secret", SECRET, argocd.NAMESPACE)
        # no garbage collector runs here: an Application the ApplicationSet left is deleted by hand
        c.mgmt.delete("argoproj.io/v1alpha1", "Application", APP, argocd.NAMESPACE)


def test_capi_1_an_initialised_cluster_is_registered_and_gets_its_application(
    world: Capi, timings: dict[str, float]
) -> None:
    world.create("clusterclass")
    cluster_doc = capi.fixture("cluster-topology")
    ready_status = cluster_doc.pop("status")
    cluster_doc["metadata"].pop("uid")
    cluster = world.mgmt.apply(cluster_doc)  # provisioning: no status yet
    world.create("kubeadmcontrolplane-topology")
    world.create("machinedeployment-topology")
    world.kubeconfig(cluster)
    time.sleep(3)  # the generator has seen all of it; a Cluster whose control plane is not up waits
    assert world.secret() is None, "registered before CAPI said the control plane was initialised"

    started = time.monotonic()
    world.status(V1B2, "Cluster", CLUSTER, ready_status)
    wait_until(world.secret, timeout=60, what=f"Secret {SECRET}")
    record(timings, "capi_initialised_to_secret_s", time.monotonic() - started)
    wait_until(lambda: world.phase() == "Ready" or None, timeout=120, what=f"{NAME} to pass the readiness gate")
    record(timings, "capi_initialised_to_ready_s", time.monotonic() - started)
    ready_since = parse_time(world.annotation("argocd-lifecycle.io/phase-since"))
    app = wait_until(world.app, timeout=120, what=f"Application {APP}")
    record(timings, "capi_initialised_to_application_s", time.monotonic() - started)
    record(timings, "capi_gate_to_application_s",
           (parse_time(app["metadata"]["creationTimestamp"]) - ready_since).total_seconds())  # fmt: skip

    secret = world.secret()
    assert secret is not None
    assert secret["metadata"]["labels"] == {
        "argocd.argoproj.io/secret-type": "cluster", "argocd-lifecycle.io/managed-by": "cluster-api", "env": "sandbox",
    }  # fmt: skip
    assert app["spec"]["destination"]["server"] == world.downstream.server
    env = {e["name"]: e["value"] for e in app["spec"]["source"]["plugin"]["env"]}
    assert env["CLUSTER_NAME"] == NAME and env["CLUSTER_PHASE"] == "Ready"
    assert wait_until(
        lambda: world.events(NS, "Cluster", "ClusterReady"), timeout=30, what="ClusterReady on the Cluster"
    )
    registered = world.events(NS, "Cluster", "ClusterRegistered")
    assert registered and registered[0]["involvedObject"]["uid"] == cluster["metadata"]["uid"]
    wait_until(lambda: synced(world.app() or {}) or None, timeout=240, what=f"Application {APP} to sync")
    assert world.down.get("apps/v1", "Deployment", "web", APP_NAMESPACE) is not None


def test_capi_2_a_higher_desired_version_is_upgrading_before_a_machine_rolls(
    world: Capi, timings: dict[str, float]
) -> None:
    started = time.monotonic()
    world.patch(V1B2, "Cluster", CLUSTER, {"spec": {"topology": {"version": "v1.35.0"}}})
    wait_until(lambda: world.annotation("argocd-lifecycle.io/upgrade-to") == "1.35" or None, timeout=60,
               what="upgrade-to 1.35 on the Secret")  # fmt: skip
    wait_until(lambda: world.phase() == "Upgrading" or None, timeout=60, what=f"{NAME} to turn Upgrading")
    record(timings, "capi_version_raised_to_upgrading_s", time.monotonic() - started)

    def upgrading(app: dict[str, Any]) -> bool:
        env = {e["name"]: e["value"] for e in app["spec"]["source"]["plugin"]["env"]}
        return cluster_phase_of(app) == "Upgrading" and env.get("CLUSTER_UPGRADE_TO") == "1.35"

    wait_until(lambda: upgrading(world.app() or {}) or None, timeout=120, what="the Application to render for 1.35")
    record(timings, "capi_version_raised_to_application_upgrading_s", time.monotonic() - started)
    assert wait_until(lambda: world.events(NS, "Cluster", "ClusterUpgradeStarted"), timeout=30, what="the Event")
    # the upgrade gate's preflight ran for the target CAPI asked for: the plugin rewrites guestbook's legacy APIs
    blockers = wait_until(lambda: world.annotation("argocd-lifecycle.io/upgrade-blockers") or None, timeout=120,
                          what="the upgrade gate's verdict on the Secret")  # fmt: skip
    record(timings, "capi_version_raised_to_preflight_s", time.monotonic() - started)
    assert blockers == "0", world.annotation("argocd-lifecycle.io/upgrade-blocked")
    assert wait_until(lambda: world.lifecycle("ClusterUpgradeStarted"), timeout=60, what="the lifecycle message")

    world.patch(V1B2, "MachineDeployment", "workload-1-md-0-7xk2p", {"spec": {"replicas": 3}})
    scaled = wait_until(lambda: world.events(argocd.NAMESPACE, "Secret", "ClusterScaled"), timeout=60,
                        what="ClusterScaled on the Secret")  # fmt: skip
    assert scaled[0]["message"] == "workers 2 -> 3 (MachineDeployment workload-1-md-0-7xk2p 2 -> 3)"
    assert wait_until(lambda: world.events(NS, "Cluster", "ClusterScaled"), timeout=30, what="on the Cluster")
    message = wait_until(lambda: world.lifecycle("ClusterScaled"), timeout=60, what="the ClusterScaled message")
    assert message[0]["message"] == scaled[0]["message"] and message[0]["phase"] == "Upgrading"


def test_capi_3_a_deleted_cluster_decommissions_keeps_its_objects_and_departs(
    world: Capi, timings: dict[str, float]
) -> None:
    started = time.monotonic()
    world.mgmt.delete(V1B2, "Cluster", CLUSTER, NS)  # CAPI's finalizer holds it: deletionTimestamp set
    wait_until(lambda: world.phase() == "Decommissioning" or None, timeout=60, what=f"{NAME} Decommissioning")
    wait_until(lambda: cluster_phase_of(world.app() or {}) == "Decommissioning" or None, timeout=120,
               what="the Application to carry Decommissioning")  # fmt: skip
    record(timings, "capi_deleted_to_application_decommissioning_s", time.monotonic() - started)
    assert world.annotation("argocd-lifecycle.io/decommission") == "true"
    assert world.annotation("argocd-lifecycle.io/upgrade-to") == ""
    assert world.secret() is not None  # the kubeconfig is still there: CAPI is still tearing down

    started = time.monotonic()
    world.mgmt.delete("v1", "Secret", f"{CLUSTER}-kubeconfig", NS)  # CAPI's last step
    world.patch(V1B2, "Cluster", CLUSTER, {"metadata": {"finalizers": None}})
    wait_until(lambda: world.secret() is None or None, timeout=60, what=f"Secret {SECRET} to go")
    wait_until(lambda: world.app() is None or None, timeout=120, what=f"Application {APP} to go")
    record(timings, "capi_kubeconfig_deleted_to_application_gone_s", time.monotonic() - started)
    for api_version, kind, name in [("apps/v1", "Deployment", "web"), ("v1", "Service", "web")]:
        assert world.down.get(api_version, kind, name, APP_NAMESPACE) is not None, f"{kind}/{name} was deleted"
    assert wait_until(lambda: world.events(NS, "Cluster", "ClusterRemoved"), timeout=30, what="ClusterRemoved")
    for reason in ("ClusterDecommissioning", "ClusterRemoved"):
        assert wait_until(lambda r=reason: world.lifecycle(r), timeout=60, what=f"the {reason} message")
