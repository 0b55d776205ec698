"""The fleet against a management API on loopback (real kubernetes client) and real HTTPS clusters."""

from __future__ import annotations

import asyncio
import base64
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from argocd_lifecycle.model import Annotation, Phase
from tests.integration.generators.fake_kube_api import FakeKubeAPI
from tests.integration.generators.harness import by_name, eventually, phase_of, settings, started
from tests.integration.generators.loopback import LoopbackCluster


@pytest.fixture
def api(tmp_path: Path):
    server = FakeKubeAPI(tmp_path).start()
    yield server
    server.stop()


@pytest.fixture
def make_cluster(tmp_path: Path):
    made: list[LoopbackCluster] = []

    def make(name: str, **kw) -> LoopbackCluster:
        cluster = LoopbackCluster(tmp_path / "pki", name, **kw).start()
        made.append(cluster)
        return cluster

    yield make
    for cluster in made:
        cluster.stop()


def reasons(api: FakeKubeAPI, secret: str) -> Counter[str]:
    return Counter({e["reason"]: e["count"] for e in api.events() if e["involvedObject"]["name"] == secret})


def test_lifecycle_story_against_the_management_api(api: FakeKubeAPI, make_cluster) -> None:
    """register -> gate -> Ready; scale; upgrade start/finish; unreachable; recovery; rotation; decommission;
    deletion; a malformed Secret beside the good ones. Annotations are written only on transitions."""
    edge = make_cluster("edge")
    core = make_cluster("core")

    async def story() -> None:
        s = settings(kubeconfig=api.kubeconfig)
        # node facts every probe, so the scaling below is seen within the test's wait (a minute by default)
        fleet, _ = await started(replace(s, probing=replace(s.probing, node_interval=0)))
        try:
            api.put_secret(edge.secret())
            api.put_secret(core.secret())
            bad = core.secret(secret_name="cluster-broken")
            bad["stringData"]["config"] = "{not json"
            api.put_secret(bad)
            await eventually(fleet.engine.synced, "the first listing")
            await eventually(lambda: phase_of(fleet, "edge") == "Ready", "edge Ready")
            await eventually(lambda: phase_of(fleet, "core") == "Ready", "core Ready")
            assert set(by_name(fleet)) == {"edge", "core"}  # the malformed one is skipped
            # writes land just after the state changes: wait for them, then check them exactly
            await eventually(lambda: reasons(api, "cluster-edge")["ClusterReady"] == 1, "ClusterReady Event")
            await eventually(
                lambda: reasons(api, "cluster-broken")["InvalidClusterSecret"] == 1, "invalid Secret Event"
            )
            ann = api.secret("cluster-edge")["metadata"]["annotations"]
            assert ann[Annotation.PHASE] == "Ready" and ann[Annotation.KUBERNETES_VERSION] == "1.29.3"
            assert reasons(api, "cluster-edge") == {"ClusterRegistered": 1, "ClusterReady": 1}
            writes = sum(1 for m, p in api.requests if m == "PATCH" and p.endswith("/secrets/cluster-edge"))
            assert writes == 2  # Pending, Ready: nothing per probe
            state = by_name(fleet)["edge"]
            assert (state.nodes, state.nodes_ready, state.git_version, state.ready) == (3, 3, "v1.29.3", True)

            edge.sim.scale(5)
            await eventually(lambda: reasons(api, "cluster-edge")["ClusterScaled"] == 1, "ClusterScaled")
            assert by_name(fleet)["edge"].nodes == 5 and phase_of(fleet, "edge") == "Ready"

            edge.sim.upgrade("v1.30.1", ["v1.29.3", "v1.30.1", "v1.30.1", "v1.29.3", "v1.29.3"])
            await eventually(lambda: phase_of(fleet, "edge") == "Upgrading", "edge Upgrading")
            assert by_name(fleet)["edge"].upgrade_to == "1.30"
            edge.sim.upgrade("v1.30.1", ["v1.30.1"] * 5)
            await eventually(lambda: phase_of(fleet, "edge") == "Ready", "upgrade finished")
            await eventually(lambda: reasons(api, "cluster-edge")["ClusterUpgraded"] == 1, "ClusterUpgraded Event")
            assert api.secret("cluster-edge")["metadata"]["annotations"][Annotation.KUBERNETES_VERSION] == "1.30.1"

            edge.stop()
            await eventually(lambda: phase_of(fleet, "edge") == "Unreachable", "edge Unreachable")
            assert "unreachable" in by_name(fleet)["edge"].message and by_name(fleet)["edge"].ready
            edge.start()
            await eventually(lambda: phase_of(fleet, "edge") == "Ready", "edge recovered")
            await eventually(lambda: reasons(api, "cluster-edge")["ClusterRecovered"] == 1, "ClusterRecovered Event")

            rotated = core.secret()
            cfg = json.loads(rotated["stringData"]["config"])
            cfg["bearerToken"] = core.sim.token = "rotated-token"
            rotated["stringData"]["config"] = json.dumps(cfg)
            api.put_secret(rotated)
            await eventually(lambda: reasons(api, "cluster-core")["ClusterCredentialsRotated"] == 1, "rotation")
            await asyncio.sleep(0.5)
            assert phase_of(fleet, "core") == "Ready"  # the new token works: no blip

            decommissioned = core.secret(annotations={Annotation.DECOMMISSION: "true"})
            decommissioned["stringData"]["config"] = rotated["stringData"]["config"]
            api.put_secret(decommissioned)
            await eventually(lambda: phase_of(fleet, "core") == "Decommissioning", "decommissioning")
            api.delete_secret("cluster-core")
            await eventually(lambda: "core" not in by_name(fleet), "core gone")
            await eventually(lambda: reasons(api, "cluster-core")["ClusterRemoved"] == 1, "ClusterRemoved")
        finally:
            await fleet.aclose()

    asyncio.run(story())


def test_watch_survives_410_gone_and_dropped_connections(api: FakeKubeAPI, make_cluster) -> None:
    one, two, three = make_cluster("one"), make_cluster("two"), make_cluster("three")

    async def story() -> None:
        fleet, _ = await started(settings(kubeconfig=api.kubeconfig, interval=5))
        try:
            api.put_secret(one.secret())
            await eventually(lambda: "one" in by_name(fleet), "first cluster")
            source = fleet.source
            assert source is not None
            source.watch_timeout = (1, 1)  # the server ends each watch after a second
            api.cut_watches()  # end the current (long) watch
            watches = source.watches
            await eventually(lambda: source.watches > watches + 1, "a watch resumed after a normal end")
            lists = source.lists

            api.expire_history()  # the next resumed watch starts from an expired resourceVersion
            await eventually(lambda: source.expired >= 1, "410 Gone")
            api.put_secret(two.secret())
            await eventually(lambda: "two" in by_name(fleet), "second cluster after 410 Gone")
            assert source.lists > lists and fleet.engine.stale_seconds() == 0

            api.fail_lists = 2  # the relist after the cut fails twice: broken until it succeeds
            api.cut_watches()
            await eventually(lambda: fleet.engine.stale_seconds() > 0, "the watch reported broken")
            api.put_secret(three.secret())
            await eventually(lambda: "three" in by_name(fleet), "third cluster after reconnect", timeout=30)
            await eventually(lambda: fleet.engine.stale_seconds() == 0, "the watch whole again", timeout=30)
            assert fleet.engine.synced()

            api.delete_secret("cluster-one")
            await eventually(lambda: "one" not in by_name(fleet), "deleted cluster gone")
        finally:
            await fleet.aclose()

    asyncio.run(story())


def test_secret_data_is_base64_on_the_wire(api: FakeKubeAPI, make_cluster) -> None:
    """The API returns ``data`` (base64), not ``stringData``: the parser reads both forms."""
    edge = make_cluster("edge")
    stored = api.put_secret(edge.secret())
    assert "stringData" not in stored
    assert base64.b64decode(stored["data"]["name"]) == b"edge"


def test_only_the_leader_probes_and_writes(api: FakeKubeAPI, make_cluster) -> None:
    edge = make_cluster("edge")

    async def story() -> None:
        a, _ = await started(settings(kubeconfig=api.kubeconfig, identity="replica-a"))
        await eventually(lambda: a.engine.leading, "replica a leads")
        b, _ = await started(settings(kubeconfig=api.kubeconfig, identity="replica-b"))
        try:
            api.put_secret(edge.secret())
            await eventually(lambda: phase_of(a, "edge") == "Ready", "leader sees Ready")
            # the follower shows what the leader wrote onto the Secret
            await eventually(lambda: phase_of(b, "edge") == "Ready", "follower follows the annotations")
            assert not b.engine.leading and b.engine.probes == 0
            assert api.store["leases"]["argocd-lifecycle-generator"]["spec"]["holderIdentity"] == "replica-a"

            # the leader loses the Lease (another holder renews it): it stops writing at once
            assert a.leader is not None
            lease = api.store["leases"]["argocd-lifecycle-generator"]
            lease["spec"]["holderIdentity"] = "someone-else"
            lease["spec"]["renewTime"] = "2099-01-01T00:00:00.000000Z"
            await eventually(lambda: not a.engine.leading, "leader stepped down")
            patches = sum(1 for m, p in api.requests if m == "PATCH" and "/secrets/" in p)
            edge.stop()
            await asyncio.sleep(1.0)
            assert sum(1 for m, p in api.requests if m == "PATCH" and "/secrets/" in p) == patches
            assert api.secret("cluster-edge")["metadata"]["annotations"][Annotation.PHASE] == Phase.READY
        finally:
            await b.aclose()
            await a.aclose()

    asyncio.run(story())


def test_list_pages_through_large_inventories(api: FakeKubeAPI) -> None:
    """1,201 Secrets arrive in pages of 500 (limit/continue), and all of them are known after one listing."""
    from argocd_lifecycle.generators.fleet.inventory import Inventory
    from argocd_lifecycle.generators.fleet.kube_source import KubeSource
    from argocd_lifecycle.kube.client import KubeSettings, connect
    from tests.integration.generators.loopback import cluster_secret

    for i in range(1201):
        api.put_secret(cluster_secret(f"c{i}", f"https://c{i}.example:6443", "t", b"", config={}))

    async def story() -> None:
        inventory = Inventory("argocd")
        source = KubeSource(connect(KubeSettings(str(api.kubeconfig))), "argocd", inventory, asyncio.get_running_loop())
        source.start()
        try:
            await eventually(inventory.synced, "the first listing")
            assert len(inventory.secrets) == 1201 and not inventory.invalid
            pages = [p for m, p in api.requests if m == "GET" and p.endswith("/secrets")]
            assert len(pages) >= 3
        finally:
            source.stop()

    asyncio.run(story())


def test_a_failed_phase_write_is_retried(api: FakeKubeAPI, make_cluster) -> None:
    edge = make_cluster("edge")

    async def story() -> None:
        fleet, _ = await started(settings(kubeconfig=api.kubeconfig))
        try:
            await eventually(lambda: fleet.engine.leading, "leading")
            api.fail_patches = 2  # the Pending write fails, and its first retry too
            api.put_secret(edge.secret())
            await eventually(lambda: phase_of(fleet, "edge") == "Ready", "edge Ready")
            await eventually(
                lambda: api.secret("cluster-edge")["metadata"]["annotations"].get(Annotation.PHASE) == "Ready",
                "the Ready annotation despite the failed writes",
            )
            assert api.fail_patches == 0
            assert edge.sim.requests >= 3  # probing went on while the writes failed
        finally:
            await fleet.aclose()

    asyncio.run(story())
