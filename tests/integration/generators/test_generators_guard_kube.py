"""The mass-drop guard of two replicas against a management API on loopback (the real kubernetes client,
leader election, the Applications list/watch) and real HTTPS clusters: a selector edit, a mass Secret
deletion, a leader failover and a restart are all held, each held episode is told once (one claim on
the ApplicationSet, one Event, one receiver message), and decommission-then-delete is answered."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.generators.fleet.held import HELD_SINCE
from argocd_lifecycle.generators.runner import Fleet
from argocd_lifecycle.generators.service.answers import ParamsService
from argocd_lifecycle.generators.service.errors import Unavailable
from argocd_lifecycle.generators.service.inputs import ParamsRequest, parse_parameters
from argocd_lifecycle.generators.service.policy import PolicyTable
from argocd_lifecycle.model import Annotation
from tests.integration.generators.fake_kube_api import FakeKubeAPI
from tests.integration.generators.harness import by_name, eventually, phase_of, settings, started
from tests.integration.generators.loopback import LoopbackCluster
from tests.integration.generators.receiver_stub import EXTERNAL_SECRET, HMAC_SECRET, Receiver

APPSET = "guestbook"
PROD = {"labelSelector": {"matchLabels": {"env": "prod"}}}
NAMES = ("one", "two", "three")


def _ask(service: ParamsService, params: dict[str, Any]) -> list[str]:
    answer = service.execute(ParamsRequest(APPSET, parse_parameters(params), repr(sorted(params.items()))))
    return sorted(answer.names)


def _refusal(service: ParamsService, params: dict[str, Any]) -> str:
    with pytest.raises(Unavailable) as refused:
        _ask(service, params)
    return refused.value.message


def _service(fleet: Fleet) -> ParamsService:
    return ParamsService(
        fleet.engine,
        PolicyTable.default(),
        max_staleness=60,
        max_drop_percent=50,
        baseline=fleet.baseline,
        reporter=fleet.reporter,
        settle=0,
    )


def _application(cluster: LoopbackCluster) -> dict[str, Any]:
    """What the ApplicationSet controller creates for an answered cluster."""
    owner = {"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet", "name": APPSET, "uid": "uid-appset"}
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": f"{APPSET}-{cluster.sim.name}", "ownerReferences": [owner]},
        "spec": {"destination": {"server": cluster.url, "namespace": APPSET}},
    }


def _events(api: FakeKubeAPI, reason: str) -> list[dict[str, Any]]:
    return [e for e in api.events() if e["reason"] == reason and e["involvedObject"]["kind"] == "ApplicationSet"]


def _held_mark(api: FakeKubeAPI) -> str:
    return str((api.store["applicationsets"][APPSET]["metadata"].get("annotations") or {}).get(HELD_SINCE, ""))


@pytest.fixture
def api(tmp_path: Path):
    server = FakeKubeAPI(tmp_path).start()
    server.store["applicationsets"][APPSET] = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": APPSET, "namespace": "argocd", "resourceVersion": "1", "uid": "uid-appset"},
        "spec": {"generators": [{"plugin": {"configMapRef": {"name": "argocd-lifecycle"}}}], "template": {}},
    }
    yield server
    server.stop()


def test_replicas_hold_every_bypass_and_tell_each_episode_once(api: FakeKubeAPI, tmp_path: Path) -> None:
    receiver = Receiver()
    receiver.server.start()
    clusters = {n: LoopbackCluster(tmp_path / "pki", n).start() for n in NAMES}
    for cluster in clusters.values():
        api.put_secret(cluster.secret(labels={"env": "prod"}))

    def replica(identity: str) -> Any:
        return started(
            settings(
                kubeconfig=api.kubeconfig,
                identity=identity,
                receiver_url=receiver.url,
                receiver_secret=HMAC_SECRET,
                receiver_external_secret=EXTERNAL_SECRET,
            )
        )

    async def ready(fleet: Fleet) -> None:
        await eventually(lambda: all(phase_of(fleet, n) == "Ready" for n in NAMES), "every cluster Ready")

    async def story() -> None:
        (a, _), (b, _) = await replica("replica-a"), await replica("replica-b")
        fleets = [a, b]
        try:
            await ready(a)
            await ready(b)  # the follower shows the phases the leader wrote on the Secrets
            sa, sb = _service(a), _service(b)
            assert _ask(sa, PROD) == list(sorted(NAMES))  # no Applications yet: nothing to lose
            for cluster in clusters.values():
                api.put_application(_application(cluster))
            for fleet in fleets:
                await eventually(lambda f=fleet: len(f.baseline.targets(APPSET)) == 3, "the Applications listed")

            # a selector edit: both replicas hold it; the episode is claimed, recorded and told once
            typo = {"labelSelector": {"matchLabels": {"env": "prdo"}}}
            assert "would drop 3 of the 3 clusters" in _refusal(sb, typo)
            assert "would drop 3 of the 3 clusters" in _refusal(sa, typo)
            await eventually(lambda: len(receiver.external) == 1 and _held_mark(api), "the held episode told")
            assert _refusal(sa, {**PROD, "minVersion": "1.31"}).startswith("mass-drop guard: holding")
            await asyncio.sleep(0.5)
            assert len(receiver.external) == 1 and len(_events(api, "MassDropHeld")) == 1
            told = receiver.external[0]
            assert told["trigger"] == "MassDropHeld" and told["labels"]["applicationSet"] == APPSET
            assert "one, three, two" in told["message"] and "allowMassDrop: true" in told["message"]
            assert _ask(sa, PROD) == sorted(NAMES)  # reverted: released
            await eventually(lambda: not _held_mark(api) and _events(api, "MassDropReleased"), "released")

            # a mass Secret deletion without a decommission, then a leader failover and a restart
            for name in ("one", "two"):
                api.delete_secret(f"cluster-{name}")
            for fleet in fleets:
                await eventually(lambda f=fleet: len(by_name(f)) == 1, "the Secrets gone")
            for service in (sa, sb):
                assert "would drop 2 of the 3 clusters" in _refusal(service, PROD)
            await eventually(lambda: len(receiver.external) == 2, "the second episode told")
            leader, follower = (a, b) if a.engine.leading else (b, a)
            await leader.aclose()
            fleets.remove(leader)
            await eventually(lambda: follower.engine.leading, "the follower taking the Lease over")
            assert "would drop 2 of the 3" in _refusal(_service(follower), PROD)
            restarted, _ = await replica("replica-c")
            fleets.append(restarted)
            fresh = _service(restarted)
            await eventually(lambda: restarted.engine.synced() and restarted.baseline.synced(), "listed")
            assert "would drop 2 of the 3" in _refusal(fresh, PROD)  # never a 200 with fewer
            await asyncio.sleep(0.5)  # the restarted replica finds the episode told already
            assert len(receiver.external) == 2 and len(_events(api, "MassDropHeld")) == 1  # one Event, count 2
            assert _events(api, "MassDropHeld")[0]["count"] == 2

            # restored Secrets come back Pending; once through the gate the answer is whole again
            for name in ("one", "two"):
                api.put_secret(clusters[name].secret(labels={"env": "prod"}))
            await ready(follower)
            assert _ask(fresh, PROD) == sorted(NAMES)

            # a small loss (a relabelled cluster, one of three) is given, after a fresh read of the Applications
            api.put_secret(clusters["two"].secret(labels={"env": "staging"}))
            await eventually(lambda: by_name(restarted)["two"].labels.get("env") == "staging", "the new label")
            reads = sum(1 for m, p in api.requests if m == "GET" and p.endswith("/applications"))
            assert _ask(fresh, PROD) == ["one", "three"]
            assert sum(1 for m, p in api.requests if m == "GET" and p.endswith("/applications")) == reads + 1
            api.delete_application(f"{APPSET}-two")  # Argo CD acts on the answer
            api.put_secret(clusters["two"].secret(labels={"env": "prod"}))
            await eventually(lambda: by_name(restarted)["two"].labels.get("env") == "prod", "the label back")
            api.put_application(_application(clusters["two"]))

            # the procedure: decommission, wait for the phase, delete the Secret: the Application goes
            api.put_secret(
                clusters["one"].secret(labels={"env": "prod"}, annotations={Annotation.DECOMMISSION: "true"})
            )
            for fleet in fleets:
                await eventually(lambda f=fleet: phase_of(f, "one") == "Decommissioning", "Decommissioning", 40)
            api.delete_secret("cluster-one")
            for fleet in fleets:
                await eventually(lambda f=fleet: "one" not in by_name(f), "the Secret gone")
                assert _ask(_service(fleet), PROD) == ["three", "two"]
        finally:
            for fleet in fleets:
                await fleet.aclose()

    try:
        asyncio.run(story())
    finally:
        receiver.server.stop()
        for cluster in clusters.values():
            cluster.stop()
