"""Rollouts of two replicas against a management API on loopback (the real kubernetes client, leader
election, the Applications and ApplicationSets list/watch) and real HTTPS clusters: the canary first,
then the rest one at a time after the bake; the state on the ApplicationSet written by the leader only;
consecutive rollouts each finish; a failover resumes from the annotation; a Degraded Application pauses
with one receiver message naming it, and a resume annotation is acted on once and removed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.generators.rollout.state import CONTROL_ANNOTATION, STATE_ANNOTATION, Status, decode
from argocd_lifecycle.generators.runner import Fleet
from argocd_lifecycle.generators.service.answers import ParamsService
from argocd_lifecycle.generators.service.inputs import ParamsRequest, parse_parameters
from argocd_lifecycle.generators.service.policy import PolicyTable
from tests.integration.generators.fake_kube_api import FakeKubeAPI
from tests.integration.generators.harness import eventually, phase_of, settings, started
from tests.integration.generators.loopback import LoopbackCluster
from tests.integration.generators.receiver_stub import EXTERNAL_SECRET, HMAC_SECRET, Receiver

APPSET = "guestbook"
NAMES = ("canary", "east", "west")


def rollout(revision: str) -> dict[str, Any]:
    return {
        "rollout": {
            "revision": revision,
            "waves": [{"name": "canary", "labelSelector": {"matchLabels": {"tier": "canary"}}}, {"name": "rest"}],
            "bakeTime": "1s",
            "maxUnavailable": 1,
        }
    }


def _service(fleet: Fleet) -> ParamsService:
    return ParamsService(
        fleet.engine, PolicyTable.default(), max_staleness=60, max_drop_percent=50, baseline=fleet.baseline,
        reporter=fleet.reporter, settle=0, rollouts=fleet.rollouts,
    )  # fmt: skip


def _ask(service: ParamsService, params: dict[str, Any]) -> dict[str, dict[str, str]]:
    request = ParamsRequest(APPSET, parse_parameters(params), repr(params))
    answer = service.execute(request)
    return {c.name: dict(p["rollout"]) for c, p in zip(answer.clusters, answer.params, strict=True)}


def _application(cluster: LoopbackCluster, revision: str, health: str = "Healthy") -> dict[str, Any]:
    """What the ApplicationSet controller and the application controller make of an answer."""
    owner = {"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet", "name": APPSET, "uid": "uid-appset"}
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": f"{APPSET}-{cluster.sim.name}", "ownerReferences": [owner]},
        "spec": {
            "destination": {"server": cluster.url, "namespace": APPSET},
            "source": {"repoURL": "https://git.example/apps", "targetRevision": revision},
        },
        "status": {
            "sync": {"status": "Synced", "comparedTo": {"source": {"targetRevision": revision}}},
            "health": {"status": health},
        },
    }


def _appset(api: FakeKubeAPI) -> dict[str, Any]:
    return api.store["applicationsets"][APPSET]


def _state(api: FakeKubeAPI) -> Any:
    text = (_appset(api)["metadata"].get("annotations") or {}).get(STATE_ANNOTATION)
    return decode(text) if text else None


def _patches(api: FakeKubeAPI) -> int:
    return sum(1 for m, p in api.requests if m == "PATCH" and p.endswith(f"/applicationsets/{APPSET}"))


def _events(api: FakeKubeAPI, reason: str) -> list[dict[str, Any]]:
    return [e for e in api.events() if e["reason"] == reason and e["involvedObject"]["kind"] == "ApplicationSet"]


@pytest.fixture
def api(tmp_path: Path):
    server = FakeKubeAPI(tmp_path).start()
    server.put_applicationset({
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": APPSET, "namespace": "argocd", "uid": "uid-appset"},
        "spec": {"generators": [{"plugin": {"configMapRef": {"name": "argocd-lifecycle"}}}], "template": {}},
    })  # fmt: skip
    yield server
    server.stop()


def test_two_replicas_roll_out_in_waves_and_keep_the_state_on_the_applicationset(
    api: FakeKubeAPI, tmp_path: Path
) -> None:
    receiver = Receiver()
    receiver.server.start()
    clusters = {n: LoopbackCluster(tmp_path / "pki", n).start() for n in NAMES}
    for name, cluster in clusters.items():
        api.put_secret(cluster.secret(labels={"tier": "canary"} if name == "canary" else {}))
        api.put_application(_application(cluster, "v1"))

    def replica(identity: str) -> Any:
        return started(
            settings(
                kubeconfig=api.kubeconfig, identity=identity, receiver_url=receiver.url,
                receiver_secret=HMAC_SECRET, receiver_external_secret=EXTERNAL_SECRET,
            )
        )  # fmt: skip

    def argo_cd_applies(plan: dict[str, dict[str, str]], health: str = "Healthy") -> None:
        for name, decided in plan.items():
            api.put_application(_application(clusters[name], decided["revision"], health))

    async def roll(fleet: Fleet, revision: str) -> list[dict[str, dict[str, str]]]:
        """Ask and apply until every cluster runs ``revision``; every answer, in order."""
        seen: list[dict[str, dict[str, str]]] = []

        async def done() -> bool:
            plan = _ask(_service(fleet), rollout(revision))
            seen.append(plan)
            argo_cd_applies(plan)
            await asyncio.sleep(0.3)  # the Applications watch brings them back
            state = _state(api)
            return state is not None and state.revision == revision and state.status is Status.DONE

        for _ in range(60):
            if await done():
                return seen
        raise AssertionError(f"the rollout of {revision} did not finish: {seen[-1]}")

    async def story() -> None:
        (a, _), (b, _) = await replica("replica-a"), await replica("replica-b")
        fleets = [a, b]
        try:
            for fleet in fleets:
                await eventually(lambda f=fleet: all(phase_of(f, n) == "Ready" for n in NAMES), "Ready", 30)
                await eventually(lambda f=fleet: f.baseline.synced() and len(f.baseline.targets(APPSET)) == 3, "apps")
            leader, follower = (a, b) if a.engine.leading else (b, a)

            # the first answer: the canary only; the state is on the ApplicationSet, written by the leader
            first = _ask(_service(leader), rollout("v2"))
            assert {n: d["revision"] for n, d in first.items()} == {"canary": "v2", "east": "v1", "west": "v1"}
            assert first["canary"] == {"revision": "v2", "wave": "canary", "state": "Rolling"}
            await eventually(lambda: _state(api) is not None, "the state annotation")
            assert _state(api).revision == "v2" and _state(api).wave == 0
            # the follower answers the same from the annotation and writes nothing
            await eventually(lambda: follower.rollouts.appsets.get(APPSET).annotations.get(STATE_ANNOTATION), "seen")
            patches = sum(1 for m, p in api.requests if m == "PATCH" and p.endswith(f"/applicationsets/{APPSET}"))
            assert _ask(_service(follower), rollout("v2")) == first
            await asyncio.sleep(0.3)
            assert (
                sum(1 for m, p in api.requests if m == "PATCH" and p.endswith(f"/applicationsets/{APPSET}")) == patches
            )

            seen = await roll(leader, "v2")
            # after the canary, one cluster of the rest at a time (maxUnavailable 1)
            assert all(sum(1 for d in plan.values() if d["state"] == "Rolling") <= 1 for plan in seen)
            await eventually(lambda: _events(api, "RolloutFinished"), "RolloutFinished")
            assert _events(api, "RolloutWaveBaked") and _events(api, "RolloutWaveStarted")

            # consecutive rollouts: each one finishes and the annotation follows
            for revision in ("v3", "v4"):
                await roll(leader, revision)
                assert _state(api).history[-1] != revision and _state(api).revision == revision

            # a failover mid-rollout: the follower takes over from the annotation
            _ask(_service(leader), rollout("v5"))
            await eventually(lambda: _state(api).revision == "v5", "v5 started")
            await leader.aclose()
            fleets.remove(leader)
            await eventually(lambda: follower.engine.leading, "the follower taking the Lease over", 30)
            assert _ask(_service(follower), rollout("v5"))["canary"]["revision"] == "v5"
            await roll(follower, "v5")

            # a Degraded Application pauses the rollout; one message names it; resume is acted on once
            plan = _ask(_service(follower), rollout("v6"))
            argo_cd_applies({"canary": plan["canary"]}, health="Degraded")
            await asyncio.sleep(0.3)
            _ask(_service(follower), rollout("v6"))
            await eventually(lambda: _state(api).status is Status.PAUSED, "paused")
            await eventually(lambda: receiver.external, "the pause told")
            told = receiver.external[0]
            assert told["trigger"] == "RolloutPaused" and told["labels"]["applications"] == f"{APPSET}-canary"
            assert _events(api, "RolloutPaused")[0]["type"] == "Warning"
            appset = _appset(api)
            appset["metadata"].setdefault("annotations", {})[CONTROL_ANNOTATION] = "resume"
            api.put_applicationset(appset)
            argo_cd_applies({"canary": plan["canary"]})  # healthy again
            await asyncio.sleep(0.5)
            _ask(_service(follower), rollout("v6"))
            await eventually(
                lambda: CONTROL_ANNOTATION not in (_appset(api)["metadata"].get("annotations") or {}), "removed"
            )
            await roll(follower, "v6")
            assert len(receiver.external) == 1
        finally:
            for fleet in fleets:
                await fleet.aclose()

    try:
        asyncio.run(story())
    finally:
        receiver.server.stop()
        for cluster in clusters.values():
            cluster.stop()
