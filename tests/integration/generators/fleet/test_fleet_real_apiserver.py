"""The lifecycle story against a real kube-apiserver + etcd (pinned upstream builds) as the management API.

The same wire assumptions the loopback API encodes (merge patch of annotations, Events and their
count, Lease, list/watch, ApplicationSet patch) are checked here against the real server. A missing
binary fails the test with the reason; it is never skipped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.kube.client import Kube, KubeSettings, connect
from argocd_lifecycle.model import Annotation
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
