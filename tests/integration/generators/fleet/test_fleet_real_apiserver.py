"""The lifecycle story against a real kube-apiserver + etcd (pinned upstream builds) as the management API.

The same wire assumptions the loopback API encodes (merge patch of annotations, Events and their
count, Lease, list/watch, ApplicationSet patch) are checked here against the real server. A missing
binary fails the test with the reason; it is never skipped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.cluster_secrets import IMPLICIT_IN_CLUSTER
from argocd_lifecycle.generators.fleet.in_cluster import InCluster
from argocd_lifecycle.kube.client import Kube, KubeSettings, connect
from argocd_lifecycle.model import IN_CLUSTER_NAME, IN_CLUSTER_SERVER, Annotation
from tests.harness.kubeapi import Cluster, start_single
from tests.harness.procs import HarnessError, Supervisor
from tests.integration.generators.harness import by_name, eventually, phase_of, settings, started
from tests.integration.generators.loopback import LoopbackCluster

pytestmark = pytest.mark.upstream

APPSET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "applicationsets.argoproj.io"},
    "spec": {
        "group": "argoproj.io",
        "scope": "Namespaced",
        "names": {"plural": "applicationsets", "singular": "applicationset", "kind": "ApplicationSet"},
        "versions": [
            {
                "name": "v1alpha1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            }
        ],
    },
}


@pytest.fixture(scope="module")
def management(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("real-apiserver")
    sup = Supervisor(folder / "logs")
    try:
        cluster = start_single(sup, folder, "management")
        with cluster.http() as http:
            http.post("/api/v1/namespaces", json={"metadata": {"name": "argocd"}}).raise_for_status()
            http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=APPSET_CRD).raise_for_status()
            deadline = time.monotonic() + 60
            while http.get("/apis/argoproj.io/v1alpha1/namespaces/argocd/applicationsets").status_code != 200:
                if time.monotonic() > deadline:
                    raise HarnessError("the ApplicationSet CRD was not served within 60s")
                time.sleep(0.2)
    except HarnessError as exc:
        sup.stop_all()
        pytest.fail(f"kube-apiserver/etcd did not start: {exc}", pytrace=False)
    try:
        yield cluster
    finally:
        sup.stop_all()


def _call(kube: Kube, what: str, fn: Any, *args: Any, **kw: Any) -> Any:
    return kube.call(what, fn, *args, **kw)


def test_lifecycle_story_on_a_real_apiserver(management: Cluster, tmp_path: Path) -> None:
    kube = connect(KubeSettings(str(management.kubeconfig)))
    core = kube.core
    edge = LoopbackCluster(tmp_path / "pki", "edge").start()
    appset = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": "fleet", "namespace": "argocd"},
        "spec": {"generators": [{"plugin": {"configMapRef": {"name": "argocd-lifecycle"}}}], "template": {}},
    }
    with management.http() as http:
        http.post("/apis/argoproj.io/v1alpha1/namespaces/argocd/applicationsets", json=appset).raise_for_status()

    def secret() -> dict[str, Any]:
        return _call(kube, "read", core.read_namespaced_secret, "cluster-edge", "argocd")

    def events(reason: str) -> list[dict[str, Any]]:
        listing = _call(kube, "list events", core.list_namespaced_event, "argocd")
        return [e for e in listing["items"] if e["reason"] == reason and e["involvedObject"]["name"] == "cluster-edge"]

    def appset_refreshed() -> bool:
        with management.http() as http:
            obj = http.get("/apis/argoproj.io/v1alpha1/namespaces/argocd/applicationsets/fleet").json()
        return (obj["metadata"].get("annotations") or {}).get(Annotation.APPSET_REFRESH) == "true"

    async def story() -> None:
        fleet, _ = await started(settings(kubeconfig=management.kubeconfig))
        try:
            _call(kube, "create", core.create_namespaced_secret, "argocd", edge.secret())
            await eventually(lambda: phase_of(fleet, "edge") == "Ready", "edge Ready", timeout=60)
            await eventually(lambda: events("ClusterReady"), "ClusterReady Event", timeout=30)
            ann = secret()["metadata"]["annotations"]
            assert ann[Annotation.PHASE] == "Ready" and ann[Annotation.KUBERNETES_VERSION] == "1.29.3"
            assert ann[Annotation.PHASE_SINCE].endswith("Z")
            event = events("ClusterReady")[0]
            assert event["source"]["component"] == "argocd-lifecycle" and event["involvedObject"]["kind"] == "Secret"
            await eventually(appset_refreshed, "the ApplicationSet refresh annotation", timeout=30)
            lease = _call(
                kube, "lease", kube.coordination.read_namespaced_lease, "argocd-lifecycle-generator", "argocd"
            )
            assert lease["spec"]["holderIdentity"] == "replica-a"

            for _ in range(2):  # the same reason twice: one Event, count 2
                edge.stop()
                await eventually(lambda: phase_of(fleet, "edge") == "Unreachable", "Unreachable", timeout=30)
                edge.start()
                await eventually(lambda: phase_of(fleet, "edge") == "Ready", "Ready again", timeout=30)
            await eventually(
                lambda: [e for e in events("ClusterUnreachable") if e["count"] == 2], "count 2", timeout=30
            )
            assert len(events("ClusterUnreachable")) == 1

            patch = {"metadata": {"annotations": {Annotation.DECOMMISSION: "true"}}}
            _call(kube, "patch", core.patch_namespaced_secret, "cluster-edge", "argocd", patch,
                  _content_type="application/merge-patch+json")  # fmt: skip
            await eventually(lambda: phase_of(fleet, "edge") == "Decommissioning", "Decommissioning", timeout=30)
            await eventually(
                lambda: secret()["metadata"]["annotations"][Annotation.PHASE] == "Decommissioning", "annotation"
            )
            assert secret()["metadata"]["annotations"][Annotation.DECOMMISSION] == "true"  # theirs untouched
            _call(kube, "delete", core.delete_namespaced_secret, "cluster-edge", "argocd")
            await eventually(lambda: "edge" not in by_name(fleet), "edge gone", timeout=30)
            await eventually(lambda: events("ClusterRemoved"), "ClusterRemoved Event", timeout=30)
        finally:
            await fleet.aclose()
            edge.stop()

    asyncio.run(story())


#: what the generator's ServiceAccount needs for a probe of the management cluster (nodes for the facts)
PROBER_ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRole",
    "metadata": {"name": "in-cluster-prober"},
    "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]}],
}
PROBER_BINDING = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "ClusterRoleBinding",
    "metadata": {"name": "in-cluster-prober"},
    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "in-cluster-prober"},
    "subjects": [{"kind": "ServiceAccount", "name": "argocd-lifecycle-generator", "namespace": "argocd"}],
}


def _mounted_service_account(management: Cluster, folder: Path) -> Path:
    """What the kubelet mounts for the generator's pod: a real ServiceAccount token from the TokenRequest
    API, the cluster's CA and the namespace."""
    account = "/api/v1/namespaces/argocd/serviceaccounts"
    with management.http() as http:
        if http.get(f"{account}/argocd-lifecycle-generator").status_code == 404:
            http.post(account, json={"metadata": {"name": "argocd-lifecycle-generator"}}).raise_for_status()
            rbac = "/apis/rbac.authorization.k8s.io/v1"
            http.post(f"{rbac}/clusterroles", json=PROBER_ROLE).raise_for_status()
            http.post(f"{rbac}/clusterrolebindings", json=PROBER_BINDING).raise_for_status()
        answer = http.post(
            f"{account}/argocd-lifecycle-generator/token",
            json={
                "apiVersion": "authentication.k8s.io/v1",
                "kind": "TokenRequest",
                "spec": {"expirationSeconds": 3600},
            },
        )
        answer.raise_for_status()
    folder.mkdir(parents=True)
    (folder / "token").write_text(answer.json()["status"]["token"])
    (folder / "ca.crt").write_bytes(management.ca.cert_pem)
    (folder / "namespace").write_text("argocd")
    return folder


def _argocd_cm(management: Cluster, data: dict[str, str]) -> None:
    path = "/api/v1/namespaces/argocd/configmaps"
    with management.http() as http:
        http.delete(f"{path}/argocd-cm")
        body = {"metadata": {"name": "argocd-cm", "namespace": "argocd"}, "data": data}
        http.post(path, json=body).raise_for_status()


def test_the_implicit_in_cluster_entry_is_probed_with_the_pods_mounted_token(
    management: Cluster, tmp_path: Path
) -> None:
    """Argo CD's in-cluster entry without a Secret, as `--in-cluster` lists it: probed with the pod's
    ServiceAccount (a real token, the mounted CA, the address of KUBERNETES_SERVICE_HOST/PORT) to Ready
    with the node facts its role allows; a token the server refuses is one auth error naming no token;
    argocd-cm's `cluster.inClusterEnabled: "false"` leaves it out."""
    account = _mounted_service_account(management, tmp_path / "serviceaccount")
    where = InCluster("127.0.0.1", str(management.port), str(account))
    base = settings(kubeconfig=management.kubeconfig, interval=0.2)
    s = replace(base, in_cluster=True, probing=replace(base.probing, in_cluster=where))
    _argocd_cm(management, {"url": "https://argocd.example"})

    async def ready() -> None:
        fleet, _ = await started(s)
        try:
            await eventually(lambda: phase_of(fleet, IN_CLUSTER_NAME) == "Ready", "in-cluster Ready", timeout=60)
            local = by_name(fleet)[IN_CLUSTER_NAME]
            assert (local.server, local.implicit, local.secret_name) == (IN_CLUSTER_SERVER, True, IMPLICIT_IN_CLUSTER)
            assert local.git_version == "v1.34.2" and local.nodes_known and local.nodes == 0
        finally:
            await fleet.aclose()

    asyncio.run(ready())

    token = (account / "token").read_text()
    (account / "token").write_text("not-a-token-the-server-signed")

    async def refused() -> None:
        fleet, registry = await started(s)
        try:
            await eventually(
                lambda: registry.get_sample_value(
                    "argocd_lifecycle_probe_errors_total", {"cluster": IN_CLUSTER_NAME, "reason": "auth"}
                ),
                "an auth probe error",
                timeout=30,
            )
            assert phase_of(fleet, IN_CLUSTER_NAME) == "Pending"
            assert "HTTP 401" in by_name(fleet)[IN_CLUSTER_NAME].message
        finally:
            await fleet.aclose()

    asyncio.run(refused())
    (account / "token").write_text(token)

    _argocd_cm(management, {"cluster.inClusterEnabled": "false"})

    async def disabled() -> None:
        fleet, _ = await started(s)
        try:
            await eventually(fleet.engine.synced, "the Secrets listed", timeout=30)
            assert IN_CLUSTER_NAME not in by_name(fleet) and IMPLICIT_IN_CLUSTER not in fleet.engine.inventory.secrets
        finally:
            await fleet.aclose()

    asyncio.run(disabled())
