"""No object can stop a listing (issue 24, finding 2), against a real kube-apiserver + etcd with Cluster API
v1.14.2's CRDs: the objects are there before the generator starts, so its first listing meets them.

On 6729d94 a cluster Secret whose ``config`` held one non-ASCII character in ``caData`` left the inventory
unlisted (every ApplicationSet answered 503, ``/healthz`` said ok), and a kubeconfig Secret with one in
``certificate-authority-data`` left the CAPI scope unlisted (no Cluster was registered, upgraded or torn
down), both until a relist that deleting the Secret did not bring. Both tests time out there.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from argocd_lifecycle.generators.capi.servers import ServerPolicy, ServerRule
from argocd_lifecycle.generators.capi.settings import CapiSettings
from argocd_lifecycle.generators.runner import Fleet
from argocd_lifecycle.generators.service.app import build_app
from argocd_lifecycle.generators.service.settings import ServiceSettings
from argocd_lifecycle.kube.client import Kube, KubeSettings, connect
from tests.harness import capi
from tests.harness.kubeapi import Cluster
from tests.integration.generators.capi.test_capi_real_apiserver import management  # noqa: F401 - its fixture
from tests.integration.generators.harness import by_name, eventually, eventually_read, settings, started
from tests.integration.generators.loopback import LoopbackCluster

pytestmark = pytest.mark.upstream

NS = capi.NAMESPACE
TOKEN = "readiness-test-token"
LOOPBACK = ServerPolicy(allow=(ServerRule.parse("127.0.0.0/8", where="test"),))


def _service(fleet: Fleet, tmp_path: Path) -> httpx.AsyncClient:
    """The plugin-generator service as ``generator serve`` builds it over this fleet, in process."""
    token = tmp_path / "token"
    token.write_text(TOKEN)
    app = build_app(fleet.engine, ServiceSettings.from_options(token_file=token, drop_settle=0.0),
                    baseline=fleet.baseline, watches=fleet.watches)  # fmt: skip
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://generator")


async def _ready(client: httpx.AsyncClient, timeout: float = 20.0) -> httpx.Response:
    """/readyz once it says ready (the Applications are listed beside the Secrets), or as it is at the end."""
    deadline = time.monotonic() + timeout
    while True:
        response = await client.get("/readyz")
        if response.status_code == 200 or time.monotonic() > deadline:
            return response
        await asyncio.sleep(0.1)


async def _answer(client: httpx.AsyncClient) -> httpx.Response:
    body = {"applicationSetName": "all", "input": {"parameters": {"readyOnly": False}}}
    return await client.post("/api/v1/getparams.execute", json=body, headers={"Authorization": f"Bearer {TOKEN}"})


def _events(kube: Kube, namespace: str, reason: str, name: str) -> list[dict[str, Any]]:
    listing = kube.call("list events", kube.core.list_namespaced_event, namespace)
    return [e for e in listing["items"] if e["reason"] == reason and e["involvedObject"]["name"] == name]


def test_a_cluster_secret_with_non_ascii_in_a_base64_field_freezes_nothing(
    management: Cluster,  # noqa: F811 - the fixture imported above
    tmp_path: Path,
) -> None:
    kube = connect(KubeSettings(str(management.kubeconfig)))
    good = LoopbackCluster(tmp_path / "pki", "good").start()
    bad = good.secret(secret_name="cluster-bad")
    bad["stringData"].update(name="bad", config=json.dumps({"tlsClientConfig": {"caData": "LS0t\u00e9"}}))
    for secret in (good.secret(), bad):  # there before the first listing
        kube.call("create", kube.core.create_namespaced_secret, "argocd", secret)
    # the ApplicationSet asking: the generator answers only one it can place (and so guard)
    appset = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": "all", "namespace": "argocd"},
        "spec": {"generators": [], "template": {}},
    }
    kube.call("create", kube.custom.create_namespaced_custom_object, "argoproj.io", "v1alpha1", "argocd",
              "applicationsets", appset)  # fmt: skip

    async def story() -> None:
        fleet, _ = await started(settings(kubeconfig=management.kubeconfig, leader_election=False))
        client = _service(fleet, tmp_path)
        try:
            await eventually(fleet.engine.synced, "the first listing of the cluster Secrets")
            assert set(by_name(fleet)) == {"good"}
            assert fleet.engine.inventory.invalid == {
                "cluster-bad": "Secret argocd/cluster-bad: config.tlsClientConfig.caData is not base64"
            }
            ready = await _ready(client)
            assert ready.json() == {"status": "ready"}, ready.text
            answer = await _answer(client)
            assert answer.status_code == 200, answer.text
            assert [p["name"] for p in answer.json()["output"]["parameters"]] == ["good"]
            event = (await eventually_read(lambda: _events(kube, "argocd", "InvalidClusterSecret", "cluster-bad"),
                                           "the InvalidClusterSecret Warning"))[0]  # fmt: skip
            assert event["type"] == "Warning" and "caData is not base64" in event["message"]
        finally:
            await client.aclose()
            await fleet.aclose()
            good.stop()

    asyncio.run(story())


def test_a_kubeconfig_with_non_ascii_in_a_base64_field_freezes_no_cluster(
    management: Cluster,  # noqa: F811 - the fixture imported above
    tmp_path: Path,
) -> None:
    kube, http = connect(KubeSettings(str(management.kubeconfig))), management.http()
    edge = LoopbackCluster(tmp_path / "pki", "edge-2").start()
    group = f"/apis/cluster.x-k8s.io/v1beta2/namespaces/{NS}/clusters"
    made = {}
    for name in ("edge-2", "broken-1"):
        doc = capi.fixture("cluster-plain", name=name)
        status = doc.pop("status")
        doc["spec"]["controlPlaneRef"]["name"] = "absent"
        created = http.post(group, json=doc)
        assert created.status_code == 201, created.text
        url = f"{group}/{name}/status"
        patched = http.patch(url, json={"status": status}, headers={"Content-Type": "application/merge-patch+json"})
        assert patched.status_code == 200, patched.text
        made[name] = patched.json()
    config = capi.kubeconfig("edge-2", edge.url, edge.ca.pem, token=edge.sim.token)
    kube.call("create", kube.core.create_namespaced_secret, NS, capi.kubeconfig_secret(made["edge-2"], config))
    hostile = capi.kubeconfig("broken-1", "https://127.0.0.1:1", edge.ca.pem, token="t")
    hostile["clusters"][0]["cluster"]["certificate-authority-data"] = "LS0tLS1CRUdJTi\u00e9"
    kube.call("create", kube.core.create_namespaced_secret, NS, capi.kubeconfig_secret(made["broken-1"], hostile))
    # a KubeadmControlPlane the CRD admits and we do not read: a NUL in its version
    plane = capi.fixture("kubeadmcontrolplane-plain", name="broken-1-cp")
    plane.pop("status", None)
    plane["spec"]["version"] = "v1.33.4\x00"
    url = f"/apis/controlplane.cluster.x-k8s.io/v1beta2/namespaces/{NS}/kubeadmcontrolplanes"
    created = http.post(url, json=plane)
    assert created.status_code == 201, created.text
    serve = replace(settings(kubeconfig=management.kubeconfig, leader_election=False),
                    capi=CapiSettings((NS,), (), LOOPBACK))  # fmt: skip

    async def story() -> None:
        fleet, registry = await started(serve)
        client = _service(fleet, tmp_path)
        try:
            await eventually(lambda: "edge-2.capi-clusters" in by_name(fleet), "edge-2 registered", timeout=60)
            warned = await eventually_read(lambda: _events(kube, NS, "InvalidKubeconfig", "broken-1"),
                                           "the InvalidKubeconfig Warning on broken-1")  # fmt: skip
            assert "certificate-authority-data is not base64" in warned[0]["message"]
            invalid = await eventually_read(lambda: _events(kube, NS, "InvalidCapiObject", "broken-1-cp"),
                                            "the InvalidCapiObject Warning on the control plane")  # fmt: skip
            assert invalid[0]["involvedObject"]["kind"] == "KubeadmControlPlane"
            assert "spec.version must be at most 1024 characters, none a control character" in invalid[0]["message"]
            gauge = "argocd_lifecycle_capi_invalid_objects"
            assert registry.get_sample_value(gauge, {"kind": "KubeadmControlPlane"}) == 1
            assert registry.get_sample_value(gauge, {"kind": "KubeconfigSecret"}) == 1
            ready = await _ready(client)
            assert ready.json() == {"status": "ready"}, ready.text
        finally:
            await client.aclose()
            await fleet.aclose()
            edge.stop()
            http.close()

    asyncio.run(story())
