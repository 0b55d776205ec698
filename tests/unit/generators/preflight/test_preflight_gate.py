"""The upgrade gate: evaluated on each Application change that matters, published only on change, with
the Secret's own annotations as its memory (so nothing repeats after a restart or a resync)."""

from __future__ import annotations

import asyncio
from typing import Any

from prometheus_client import CollectorRegistry

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.generators.fleet.inventory import Inventory
from argocd_lifecycle.generators.preflight.gate import GateMetrics, UpgradeGate
from argocd_lifecycle.generators.preflight.publish import LogPublisher, Publication
from argocd_lifecycle.model import Annotation, Reason

from .helpers import application, resource, secret_object

VAC_OLD = resource("storage.k8s.io/v1beta1", "VolumeAttributesClass", "fast", namespace="")
VAC_NEW = resource("storage.k8s.io/v1", "VolumeAttributesClass", "fast", namespace="")
PDB = resource("policy/v1beta1", "PodDisruptionBudget", "web")
PLUGIN = {"name": "argocd-lifecycle-v1"}


class World:
    """An inventory fed like the Secret watch, a gate, and a publisher whose writes land on the Secret."""

    def __init__(self, annotations: dict[str, str], *, unseen: tuple[str, ...] = ()) -> None:
        self.inventory = Inventory("argocd")
        self.publisher = LogPublisher()
        self.registry = CollectorRegistry()
        metrics = GateMetrics(self.registry)
        self.gate = UpgradeGate(builtin(), self.inventory, self.publisher, metrics, settle=0, unseen=unseen)
        self.annotations = {Annotation.KUBERNETES_VERSION: "1.34.2", **annotations}
        self.version = 1
        self._push()

    def _push(self) -> None:
        obj: Any = secret_object(annotations=dict(self.annotations))
        obj["metadata"]["resourceVersion"] = str(self.version)
        self.version += 1
        self.inventory.apply(obj)

    def annotate(self, changes: dict[str, str | None]) -> None:
        for key, value in changes.items():
            if value is None:
                self.annotations.pop(key, None)
            else:
                self.annotations[key] = value
        self._push()

    async def step(self) -> list[Publication]:
        """One gate step; what it published is written back onto the Secret, as the API would."""
        before = len(self.publisher.published)
        await self.gate.step()
        out = [p for _, p in self.publisher.published[before:]]
        for publication in out:
            self.annotate(dict(publication.annotations))
        return out

    def gauge(self) -> float | None:
        return self.registry.get_sample_value("argocd_lifecycle_cluster_upgrade_blockers", {"cluster": "prod"})


def world(annotations: dict[str, str]) -> World:
    return World(annotations)


def _events(pubs: list[Publication]) -> list[tuple[Reason, str]]:
    return [p.event for p in pubs if p.event is not None]


def test_a_blocked_episode_from_start_to_clear() -> None:
    async def story() -> None:
        w = world({Annotation.UPGRADE_TO: "1.37"})
        consumer = w.gate.consumer()
        assert await w.step() == []  # before the Applications are listed nothing is decided
        consumer.listed([application("plain", [VAC_OLD]), application("ours", [VAC_OLD], plugin=PLUGIN,
                                                                              source_type="Plugin")])  # fmt: skip
        pubs = await w.step()
        assert _events(pubs) == [
            (
                Reason.UPGRADE_BLOCKED,
                "upgrade of prod to 1.37 blocked by 1 object(s) in 1 Application(s); 1 object(s) rewritten at render "
                "by the plugin: by project: default 1; "
                "argocd/plain: VolumeAttributesClass fast (storage.k8s.io/v1beta1)",
            )
        ]
        since = w.annotations[Annotation.UPGRADE_BLOCKED_SINCE]
        assert w.annotations[Annotation.UPGRADE_BLOCKERS] == "1" and since.endswith("Z")
        assert w.gauge() == 1.0
        assert await w.step() == []  # its own write changed the Secret: re-evaluated, nothing new

        # Argo CD rewrites status on every reconcile: equal for the preflight, no evaluation at all
        done = w.gate.evaluations
        noisy = application("plain", [VAC_OLD])
        noisy["status"]["reconciledAt"] = "2026-01-02T15:04:05Z"
        consumer.upserted(noisy)
        assert await w.step() == [] and w.gate.evaluations == done

        # a second blocker in the same episode: an updated Event, the episode keeps its start
        consumer.upserted(application("shop", [PDB]))
        pubs = await w.step()
        assert [e[0] for e in _events(pubs)] == [Reason.UPGRADE_BLOCKED]
        assert w.annotations[Annotation.UPGRADE_BLOCKERS] == "2"
        assert w.annotations[Annotation.UPGRADE_BLOCKED_SINCE] == since
        assert "argocd/shop: PodDisruptionBudget shop/web (policy/v1beta1)" in w.annotations[Annotation.UPGRADE_BLOCKED]

        # the manifest fixed in Git: Argo CD's status shows v1, the gate clears
        consumer.deleted(application("shop", []))
        await w.step()
        consumer.upserted(application("plain", [VAC_NEW]))
        pubs = await w.step()
        assert _events(pubs) == [
            (
                Reason.UPGRADE_CLEAR,
                "upgrade of prod to 1.37: nothing blocks it; 1 object(s) rewritten at render by the plugin",
            )
        ]
        assert w.annotations[Annotation.UPGRADE_BLOCKERS] == "0"
        assert Annotation.UPGRADE_BLOCKED not in w.annotations and Annotation.UPGRADE_BLOCKED_SINCE not in w.annotations
        assert w.gauge() == 0.0

        # upgrade-to removed: the gate's annotations go, no Event, no gauge
        w.annotate({Annotation.UPGRADE_TO: None})
        pubs = await w.step()
        assert _events(pubs) == [] and Annotation.UPGRADE_BLOCKERS not in w.annotations
        assert w.gauge() is None

    asyncio.run(story())


def test_a_restart_finds_the_episode_on_the_secret_and_repeats_nothing() -> None:
    async def story() -> None:
        w = world({Annotation.UPGRADE_TO: "1.37"})
        w.gate.consumer().listed([application("plain", [VAC_OLD])])
        first = await w.step()
        assert len(_events(first)) == 1
        again = World(dict(w.annotations))  # a new process (or the new leader) reading the same Secret
        again.gate.consumer().listed([application("plain", [VAC_OLD])])
        assert await again.step() == []
        assert again.gauge() == 1.0  # the gauge is set on every evaluation, writes or not

    asyncio.run(story())


def test_a_failed_write_is_tried_again() -> None:
    class Refusing(LogPublisher):
        def __init__(self) -> None:
            super().__init__()
            self.refuse = True

        async def publish(self, secret: Any, publication: Publication, when: Any) -> bool:
            if self.refuse:
                return False
            return await super().publish(secret, publication, when)

    async def story() -> None:
        w = world({Annotation.UPGRADE_TO: "1.37"})
        w.publisher = w.gate.publisher = Refusing()  # type: ignore[misc]
        w.gate.consumer().listed([application("plain", [VAC_OLD])])
        await w.gate.step()
        assert w.publisher.published == []
        w.publisher.refuse = False  # type: ignore[attr-defined]
        await w.gate.step()  # nothing changed meanwhile: only the retry brings it
        assert [p.event[0] for _, p in w.publisher.published if p.event] == [Reason.UPGRADE_BLOCKED]

    asyncio.run(story())


def test_only_gated_clusters_are_evaluated_and_bad_targets_are_not_guessed() -> None:
    async def story() -> None:
        w = world({})
        w.gate.consumer().listed([application("plain", [VAC_OLD])])
        assert await w.step() == [] and w.gate.evaluations == 0
        w.annotate({Annotation.UPGRADE_TO: "soon"})
        assert await w.step() == [] and w.gate.evaluations == 0

    asyncio.run(story())


def test_run_coalesces_a_burst_into_one_evaluation() -> None:
    async def story() -> None:
        w = world({Annotation.UPGRADE_TO: "1.37"})
        w.gate.settle = 0.05
        task = asyncio.create_task(w.gate.run())
        consumer = w.gate.consumer()
        consumer.listed([])
        await asyncio.sleep(0.2)
        start = w.gate.evaluations
        for i in range(50):
            consumer.upserted(application(f"app-{i}", [VAC_OLD]))
        await asyncio.sleep(0.3)
        task.cancel()
        assert w.gate.evaluations - start == 1
        assert [p.event[0] for _, p in w.publisher.published if p.event][-1] is Reason.UPGRADE_BLOCKED

    asyncio.run(story())


def test_a_follower_evaluates_nothing_until_it_leads() -> None:
    async def story() -> None:
        w = world({Annotation.UPGRADE_TO: "1.37"})
        leading = [False]
        w.gate.is_leader = lambda: leading[0]
        w.gate.consumer().listed([application("plain", [VAC_OLD])])
        assert await w.step() == [] and w.gate.evaluations == 0
        leading[0] = True  # the Lease moved here: what was marked is evaluated now
        assert [e[0] for e in _events(await w.step())] == [Reason.UPGRADE_BLOCKED]

    asyncio.run(story())


def test_a_deleted_secret_leaves_no_gauge() -> None:
    async def story() -> None:
        w = world({Annotation.UPGRADE_TO: "1.37"})
        w.gate.consumer().listed([application("plain", [VAC_OLD])])
        await w.step()
        assert w.gauge() == 1.0
        w.inventory.delete("cluster-prod")
        assert w.gauge() is None

    asyncio.run(story())


def test_blockers_by_project_keep_no_stale_series() -> None:
    def by_project(w: World) -> dict[str, float]:
        return {
            s.labels["project"]: s.value
            for m in w.registry.collect()
            if m.name == "argocd_lifecycle_cluster_upgrade_blockers_by_project"
            for s in m.samples
            if s.labels["cluster"] == "prod"
        }

    def owned(name: str, project: str, resources: list[dict[str, Any]]) -> dict[str, Any]:
        return application(name, resources, namespace=project, project=project)

    async def story() -> None:
        w = world({Annotation.UPGRADE_TO: "1.37"})
        consumer = w.gate.consumer()
        consumer.listed([owned("web", "team-a", [VAC_OLD, PDB]), owned("api", "team-b", [VAC_OLD])])
        pubs = await w.step()
        assert by_project(w) == {"team-a": 2.0, "team-b": 1.0} and w.gauge() == 3.0
        (event,) = _events(pubs)
        assert "blocked by 3 object(s) in 2 Application(s): by project: team-a 2, team-b 1; " in event[1]
        assert w.annotations[Annotation.UPGRADE_BLOCKED].startswith("by project: team-a 2, team-b 1; team-a/web: ")

        # team-b fixes its manifest: its series goes, it does not stay at 0
        consumer.upserted(owned("api", "team-b", [VAC_NEW]))
        await w.step()
        assert by_project(w) == {"team-a": 2.0}
        assert w.annotations[Annotation.UPGRADE_BLOCKED].startswith("by project: team-a 2; ")

        # clear: no by-project series at all, the cluster's gauge says 0
        consumer.upserted(owned("web", "team-a", [VAC_NEW]))
        await w.step()
        assert by_project(w) == {} and w.gauge() == 0.0

        # blocked again, then the gate ends (upgrade-to removed): every series goes
        consumer.upserted(owned("web", "team-a", [PDB]))
        await w.step()
        assert by_project(w) == {"team-a": 1.0}
        w.annotate({Annotation.UPGRADE_TO: None})
        await w.step()
        assert by_project(w) == {} and w.gauge() is None

        # and a deleted Secret leaves none either
        w.annotate({Annotation.UPGRADE_TO: "1.37"})
        await w.step()
        assert by_project(w) == {"team-a": 1.0}
        w.inventory.delete("cluster-prod")
        assert by_project(w) == {} and w.gauge() is None

    asyncio.run(story())


BLIND = (
    "argocd-cmd-params-cm application.namespaces: Applications in 'team-*', '/^ops-/', not watched "
    "(argoproj.io/v1alpha1)"
)


def test_a_gate_that_cannot_see_every_application_never_says_clear() -> None:
    """application.namespaces has namespaces the generator does not watch: an Application there may deploy
    to the cluster with an API the target drops, so the report keeps one blocker naming them."""

    async def story() -> None:
        # a Secret a gate with the full view had published clear: the blind gate takes it back
        w = World({Annotation.UPGRADE_TO: "1.37", Annotation.UPGRADE_BLOCKERS: "0"}, unseen=("team-*", "/^ops-/"))
        consumer = w.gate.consumer()
        consumer.listed([application("plain", [VAC_NEW])])  # nothing the gate sees blocks it
        pubs = await w.step()
        assert _events(pubs) == [
            (
                Reason.UPGRADE_BLOCKED,
                f"upgrade of prod to 1.37 blocked by 1 object(s) in 1 Application(s): {BLIND}",
            )
        ]
        assert w.annotations[Annotation.UPGRADE_BLOCKERS] == "1"
        assert w.annotations[Annotation.UPGRADE_BLOCKED] == BLIND
        assert w.gauge() == 1.0
        # a real blocker comes on top, named after the blind spot (which the bounded summary always keeps)
        consumer.upserted(application("shop", [PDB]))
        await w.step()
        assert w.annotations[Annotation.UPGRADE_BLOCKERS] == "2"
        # the blind spot is no project's: only the real blocker is counted by project
        blocked = w.annotations[Annotation.UPGRADE_BLOCKED]
        assert blocked.startswith(f"by project: default 1; {BLIND}; argocd/shop: PodDisruptionBudget"), blocked
        # fixing it in Git clears the real blocker only
        consumer.upserted(application("shop", []))
        await w.step()
        assert w.annotations[Annotation.UPGRADE_BLOCKERS] == "1" and w.annotations[Annotation.UPGRADE_BLOCKED] == BLIND

    asyncio.run(story())


def test_a_gate_that_sees_every_namespace_is_clear_as_before() -> None:
    async def story() -> None:
        w = World({Annotation.UPGRADE_TO: "1.37"}, unseen=())
        w.gate.consumer().listed([application("plain", [VAC_NEW])])
        await w.step()
        assert w.annotations[Annotation.UPGRADE_BLOCKERS] == "0"

    asyncio.run(story())
