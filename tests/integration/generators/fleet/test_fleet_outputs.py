"""What a transition tells the rest of the system: signed lifecycle posts, AppSet refreshes, expiry warnings."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from argocd_lifecycle.generators.fleet.refresher import REQUESTED
from argocd_lifecycle.model import Annotation
from tests.integration.generators.fake_kube_api import FakeKubeAPI
from tests.integration.generators.harness import by_name, eventually, phase_of, settings, started
from tests.integration.generators.loopback import LoopbackCluster
from tests.integration.generators.receiver_stub import HMAC_SECRET, Receiver


@pytest.fixture
def api(tmp_path: Path):
    server = FakeKubeAPI(tmp_path).start()
    yield server
    server.stop()


def appset(name: str, generators: list) -> dict:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": name, "namespace": "argocd", "resourceVersion": "1"},
        "spec": {"generators": generators, "template": {}},
    }


def test_transitions_are_posted_signed_and_refresh_plugin_appsets(api: FakeKubeAPI, tmp_path: Path) -> None:
    receiver = Receiver()
    receiver.server.start()
    edge = LoopbackCluster(tmp_path / "pki", "edge").start()
    plugin = {"plugin": {"configMapRef": {"name": "argocd-lifecycle"}, "input": {"parameters": {}}}}
    api.store["applicationsets"]["fleet"] = appset("fleet", [{"matrix": {"generators": [plugin, {"list": {}}]}}])
    api.store["applicationsets"]["plain"] = appset("plain", [{"clusters": {}}])

    async def story() -> None:
        fleet, _ = await started(
            settings(kubeconfig=api.kubeconfig, receiver_url=receiver.url, receiver_secret=HMAC_SECRET)
        )
        try:
            api.put_secret(edge.secret())
            await eventually(lambda: phase_of(fleet, "edge") == "Ready", "edge Ready")
            await eventually(
                lambda: [e["reason"] for e in receiver.accepted][:2] == ["ClusterRegistered", "ClusterReady"], "posts"
            )
            ready = receiver.accepted[1]
            assert ready["cluster"] == "edge" and ready["server"] == edge.url
            assert ready["phase"] == "Ready" and ready["previousPhase"] == "Pending"
            assert ready["kubernetesVersion"] == "1.29.3" and ready["since"].endswith("Z") and ready["message"]
            assert set(ready) == {
                "reason",
                "cluster",
                "server",
                "phase",
                "previousPhase",
                "since",
                "message",
                "kubernetesVersion",
            }
            assert receiver.rejected == 0

            def refreshed(name: str) -> bool:
                ann = api.store["applicationsets"][name]["metadata"].get("annotations") or {}
                return ann.get(Annotation.APPSET_REFRESH) == "true"

            await eventually(lambda: refreshed("fleet"), "the plugin ApplicationSet asked to refresh")
            assert not refreshed("plain")
            # Argo CD removes the annotation once it has refreshed; the next transition sets it again
            del api.store["applicationsets"]["fleet"]["metadata"]["annotations"][Annotation.APPSET_REFRESH]
            edge.stop()
            await eventually(lambda: phase_of(fleet, "edge") == "Unreachable", "edge Unreachable")
            await eventually(lambda: refreshed("fleet"), "refreshed again after the next transition")
            await eventually(lambda: receiver.accepted[-1]["reason"] == "ClusterUnreachable", "unreachable posted")
            assert receiver.accepted[-1]["previousPhase"] == "Ready"
            # a refused answer leaves Argo CD's annotation in place: each request must still change the object
            stamp = api.store["applicationsets"]["fleet"]["metadata"]["annotations"][REQUESTED]
            edge.start()
            await eventually(lambda: phase_of(fleet, "edge") == "Ready", "edge recovered")
            await eventually(
                lambda: api.store["applicationsets"]["fleet"]["metadata"]["annotations"][REQUESTED] != stamp,
                "a new refresh-requested stamp beside the refresh annotation that was still there",
            )
        finally:
            await fleet.aclose()
            edge.stop()
            receiver.server.stop()

    asyncio.run(story())


def test_certificate_expiring_event_and_expiry_on_the_fleet_view(api: FakeKubeAPI, tmp_path: Path) -> None:
    soon = LoopbackCluster(tmp_path / "pki", "soon", ca_days=5).start()
    later = LoopbackCluster(tmp_path / "pki", "later", ca_days=365).start()

    async def story() -> None:
        fleet, _ = await started(settings(kubeconfig=api.kubeconfig))
        try:
            api.put_secret(soon.secret())
            api.put_secret(later.secret())
            await eventually(lambda: phase_of(fleet, "later") == "Ready", "later Ready")

            def expiring(secret: str) -> list[dict]:
                return [
                    e
                    for e in api.events()
                    if e["reason"] == "ClusterCertificateExpiring" and e["involvedObject"]["name"] == secret
                ]

            event = (await eventually(lambda: expiring("cluster-soon"), "ClusterCertificateExpiring"))[0]
            assert event["type"] == "Warning" and ("in 4 days" in event["message"] or "in 5 days" in event["message"])
            assert event["source"]["component"] == "argocd-lifecycle"
            assert expiring("cluster-later") == []
            states = by_name(fleet)
            assert states["soon"].certificate_expires_at < states["later"].certificate_expires_at
        finally:
            await fleet.aclose()
            soon.stop()
            later.stop()

    asyncio.run(story())


def test_repeated_reason_bumps_the_event_count(api: FakeKubeAPI, tmp_path: Path) -> None:
    edge = LoopbackCluster(tmp_path / "pki", "edge").start()

    async def story() -> None:
        fleet, _ = await started(settings(kubeconfig=api.kubeconfig))
        try:
            api.put_secret(edge.secret())
            for _ in range(2):
                await eventually(lambda: phase_of(fleet, "edge") == "Ready", "Ready")
                edge.stop()
                await eventually(lambda: phase_of(fleet, "edge") == "Unreachable", "Unreachable")
                edge.start()
            await eventually(lambda: phase_of(fleet, "edge") == "Ready", "Ready again")
            events = await eventually(
                lambda: [e for e in api.events() if e["reason"] == "ClusterUnreachable" and e["count"] == 2], "count 2"
            )
            assert len(events) == 1 and events[0]["lastTimestamp"] >= events[0]["firstTimestamp"]
            assert len([e for e in api.events() if e["reason"] == "ClusterUnreachable"]) == 1
        finally:
            await fleet.aclose()
            edge.stop()

    asyncio.run(story())


def test_slowed_cluster_goes_unreachable_and_failing_readyz_degrades(tmp_path: Path) -> None:
    """Without Kubernetes (files): a cluster slower than the probe timeout, and one whose /readyz fails."""
    import yaml

    folder = tmp_path / "clusters"
    folder.mkdir()
    slow = LoopbackCluster(tmp_path / "pki", "slow").start()
    sick = LoopbackCluster(tmp_path / "pki", "sick").start()
    for cluster in (slow, sick):
        (folder / f"{cluster.sim.name}.yaml").write_text(yaml.safe_dump(cluster.secret()))

    async def story() -> None:
        fleet, registry = await started(settings(clusters_from=folder))
        try:
            await eventually(lambda: phase_of(fleet, "slow") == phase_of(fleet, "sick") == "Ready", "both Ready")
            slow.sim.delay = 2.0  # beyond the 1 s probe timeout
            sick.sim.readyz_ok = False
            await eventually(lambda: phase_of(fleet, "slow") == "Unreachable", "slow Unreachable")
            await eventually(lambda: phase_of(fleet, "sick") == "Degraded", "sick Degraded")
            assert "timeout" in by_name(fleet)["slow"].message
            assert "/readyz: HTTP 500" in by_name(fleet)["sick"].message
            errors = registry.get_sample_value(
                "argocd_lifecycle_probe_errors_total", {"cluster": "slow", "reason": "timeout"}
            )
            assert errors is not None and errors >= 2
            assert (
                registry.get_sample_value("argocd_lifecycle_cluster_phase", {"cluster": "sick", "phase": "Degraded"})
                == 1.0
            )
            slow.sim.delay = 0.0
            sick.sim.readyz_ok = True
            await eventually(lambda: phase_of(fleet, "slow") == phase_of(fleet, "sick") == "Ready", "both recovered")
            assert (
                registry.get_sample_value(
                    "argocd_lifecycle_transitions_total", {"cluster": "sick", "reason": "ClusterRecovered"}
                )
                == 1.0
            )
        finally:
            await fleet.aclose()
            slow.stop()
            sick.stop()

    asyncio.run(story())
