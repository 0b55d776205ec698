"""The keeper: the leader keeps the state on the ApplicationSet (and removes a one-shot control), a
follower answers from it without writing, restarts resume, and consecutive rollouts each finish."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from argocd_lifecycle.generators.fleet.applications import AppStatus, app_status
from argocd_lifecycle.generators.fleet.events import EventRecorder
from argocd_lifecycle.generators.fleet.view import ClusterState
from argocd_lifecycle.generators.rollout.errors import RolloutUnavailable
from argocd_lifecycle.generators.rollout.keeper import AppSetCache, RolloutKeeper, event_spec, member, paused_event
from argocd_lifecycle.generators.rollout.machine import Reason, RolloutEvent
from argocd_lifecycle.generators.rollout.spec import RolloutSpec, parse_rollout
from argocd_lifecycle.generators.rollout.state import CONTROL_ANNOTATION, STATE_ANNOTATION, Status, decode
from argocd_lifecycle.model import Annotation, Phase
from argocd_lifecycle.notifications.timeline.events import read_event

APPSET = "guestbook"
T0 = 1_767_614_400.0  # 2026-01-05T12:00:00Z


def spec(revision: str, bake: str = "5m") -> RolloutSpec:
    return parse_rollout({
        "revision": revision,
        "waves": [{"name": "canary", "labelSelector": {"matchLabels": {"tier": "canary"}}}, {"name": "rest"}],
        "bakeTime": bake,
    })  # fmt: skip


CLUSTERS = [
    ClusterState("c1", "https://c1", "s-c1", labels={"tier": "canary"}, phase=Phase.READY, ready=True),
    ClusterState("r1", "https://r1", "s-r1", phase=Phase.READY, ready=True),
    ClusterState("r2", "https://r2", "s-r2", phase=Phase.READY, ready=True),
]


@dataclass
class World:
    """The ApplicationSet's annotations (as the watch sees them), its Applications, what was told."""

    now: float = T0
    annotations: dict[str, str] = field(default_factory=dict)
    apps: dict[str, str] = field(default_factory=lambda: {c.name: "v1" for c in CLUSTERS})
    patches: list[dict[str, str | None]] = field(default_factory=list)
    told: list[str] = field(default_factory=list)
    echo: bool = True  # the watch brings each write back at once

    def cache(self) -> AppSetCache:
        cache = AppSetCache()
        cache.listed([{"metadata": {"name": APPSET, "uid": "u1", "annotations": dict(self.annotations)}}])
        return cache

    def statuses(self, appset: str) -> Mapping[tuple[str, str], Sequence[AppStatus]]:
        return {(c.server, c.name): [AppStatus(f"{c.name}-app", self.apps[c.name], True, True)] for c in CLUSTERS}

    # -- RolloutSink
    def annotate(self, appset: str, annotations: Mapping[str, str | None]) -> None:
        self.patches.append(dict(annotations))
        if self.echo:
            for key, value in annotations.items():
                if value is None:
                    self.annotations.pop(key, None)
                else:
                    self.annotations[key] = value

    def tell(self, appset: str, uid: str, event: RolloutEvent, revision: str) -> None:
        self.told.append(event.reason.value)

    def wake(self, appset: str, after: float) -> None:
        pass


def keeper(world: World, leading: bool = True) -> tuple[RolloutKeeper, AppSetCache]:
    cache = world.cache()
    return RolloutKeeper(cache, world.statuses, lambda: leading, world, clock=lambda: world.now), cache


def look(world: World, k: RolloutKeeper, cache: AppSetCache, s: RolloutSpec) -> dict[str, str]:
    """One answer; Argo CD applies it; the watch brings the annotations."""
    cache.listed([{"metadata": {"name": APPSET, "uid": "u1", "annotations": dict(world.annotations)}}])
    plan = k.plan(APPSET, s, CLUSTERS)
    for name, d in plan.items():
        world.apps[name] = d.revision
    return {n: d.revision for n, d in plan.items()}


def roll(world: World, k: RolloutKeeper, cache: AppSetCache, s: RolloutSpec, minutes: int) -> None:
    for _ in range(minutes):
        look(world, k, cache, s)
        world.now += 60


def test_the_leader_writes_the_state_annotation() -> None:
    world = World()
    k, cache = keeper(world)
    assert look(world, k, cache, spec("v2")) == {"c1": "v2", "r1": "v1", "r2": "v1"}
    state = decode(world.annotations[STATE_ANNOTATION])
    assert state.revision == "v2" and state.status is Status.ROLLING
    assert world.told == ["RolloutWaveStarted"]


def test_nothing_is_written_when_nothing_changed() -> None:
    world = World()
    k, cache = keeper(world)
    look(world, k, cache, spec("v2"))
    look(world, k, cache, spec("v2"))  # the canary is at v2 now: baking starts (a change)
    before = len(world.patches)
    look(world, k, cache, spec("v2"))
    assert len(world.patches) == before


def test_a_follower_answers_from_the_state_and_writes_nothing() -> None:
    world = World()
    leader, cache = keeper(world)
    look(world, leader, cache, spec("v2"))
    follower, other = keeper(world, leading=False)
    before = (len(world.patches), len(world.told))
    assert look(world, follower, other, spec("v2"))["c1"] == "v2"
    assert (len(world.patches), len(world.told)) == before


def test_a_restart_resumes_from_the_annotation() -> None:
    world = World()
    k, cache = keeper(world)
    roll(world, k, cache, spec("v2"), 7)  # canary baked: the rest started
    fresh, fresh_cache = keeper(world)
    assert look(world, fresh, fresh_cache, spec("v2"))["c1"] == "v2"
    assert decode(world.annotations[STATE_ANNOTATION]).wave == 1


def test_consecutive_rollouts_keep_advancing_the_annotation() -> None:
    world = World()
    k, cache = keeper(world)
    for n, revision in enumerate(("v2", "v3", "v4", "v5")):
        roll(world, k, cache, spec(revision), 20)
        state = decode(world.annotations[STATE_ANNOTATION])
        assert (state.revision, state.status) == (revision, Status.DONE), n
        assert set(world.apps.values()) == {revision}
    assert world.told.count("RolloutFinished") == 4


def test_consecutive_rollouts_advance_while_the_watch_lags() -> None:
    world = World(echo=False)  # the watch never brings our writes back: the leader's own memory must
    k, cache = keeper(world)
    for revision in ("v2", "v3", "v4"):
        roll(world, k, cache, spec(revision), 20)
        assert set(world.apps.values()) == {revision}
        assert decode(str(world.patches[-1][STATE_ANNOTATION])).status is Status.DONE


def test_resume_is_acted_on_once_and_removed() -> None:
    world = World()
    k, cache = keeper(world)
    look(world, k, cache, spec("v2"))
    world.annotations[CONTROL_ANNOTATION] = "pause"
    look(world, k, cache, spec("v2"))
    assert decode(world.annotations[STATE_ANNOTATION]).status is Status.PAUSED
    world.annotations[CONTROL_ANNOTATION] = "resume"
    look(world, k, cache, spec("v2"))
    assert CONTROL_ANNOTATION not in world.annotations
    assert world.told[-1] == "RolloutResumed"


def test_a_consumed_resume_the_watch_still_shows_is_not_acted_on_again() -> None:
    world = World(echo=False)
    k, cache = keeper(world)
    look(world, k, cache, spec("v2"))
    world.annotations[CONTROL_ANNOTATION] = "abort"
    look(world, k, cache, spec("v2"))
    look(world, k, cache, spec("v3"))  # a new rollout; the stale abort must not stop it
    assert world.told.count("RolloutAborted") == 1
    assert decode(str(world.patches[-1][STATE_ANNOTATION])).status is Status.ROLLING


def test_a_removal_of_the_control_that_did_not_land_is_made_again() -> None:
    world = World(echo=False)
    k, cache = keeper(world)
    look(world, k, cache, spec("v2"))
    world.annotations[CONTROL_ANNOTATION] = "resume"
    look(world, k, cache, spec("v2"))
    look(world, k, cache, spec("v2"))
    removals = [p for p in world.patches if CONTROL_ANNOTATION in p]
    assert len(removals) == 2 and all(p[CONTROL_ANNOTATION] is None for p in removals)


def test_a_state_annotation_that_does_not_decode_starts_over_safely() -> None:
    world = World(annotations={STATE_ANNOTATION: "{not json"})
    world.apps["r1"] = "v2"
    k, cache = keeper(world)
    plan = look(world, k, cache, spec("v2"))
    assert plan == {"c1": "v2", "r1": "v2", "r2": "v1"}  # r1 keeps v2: never backwards


def test_no_answer_before_the_applicationsets_are_listed() -> None:
    world = World()
    k = RolloutKeeper(AppSetCache(), world.statuses, lambda: True, world)
    with pytest.raises(RolloutUnavailable, match="not been listed"):
        k.plan(APPSET, spec("v2"), CLUSTERS)


def test_an_applicationset_the_watch_does_not_know_is_refused_and_kept_nowhere() -> None:
    world = World()
    k, _ = keeper(world)
    for n in range(50):  # names a request may carry: no memory, no metric label, no write for any
        with pytest.raises(RolloutUnavailable, match="not one of the namespace"):
            k.plan(f"made-up-{n}", spec("v2"), CLUSTERS)
    assert world.patches == [] and world.told == []
    assert k._mine == {}


def test_the_metrics_count_clusters_per_state() -> None:
    world = World()
    k, cache = keeper(world)
    look(world, k, cache, spec("v2"))
    clusters = {s: k.metrics.clusters.labels(APPSET, s)._value.get() for s in ("Rolling", "Waiting")}
    assert clusters == {"Rolling": 1, "Waiting": 2}
    assert k.metrics.wave.labels(APPSET)._value.get() == 0


def test_the_pause_message_names_the_applications() -> None:
    event = RolloutEvent(Reason.PAUSED, "paused at wave canary: c1-app Degraded", ("c1-app",))
    body = paused_event(APPSET, "argocd", event, "v2")
    assert body["labels"] == {"applicationSet": APPSET, "rollout": "v2", "applications": "c1-app"}
    assert body["trigger"] == "RolloutPaused" and "c1-app" in body["message"]
    assert body["revision"] == paused_event(APPSET, "argocd", event, "v2")["revision"]  # a retry is de-duplicated


def test_a_pause_tells_the_applications_that_caused_it() -> None:
    world = World()
    k, cache = keeper(world)
    look(world, k, cache, spec("v2"))
    statuses = world.statuses

    def degraded(appset: str) -> Mapping[tuple[str, str], Sequence[AppStatus]]:
        found = dict(statuses(appset))
        found[("https://c1", "c1")] = [AppStatus("c1-app", "v2", True, False, "Degraded")]
        return found

    k.statuses = degraded
    look(world, k, cache, spec("v2"))
    assert world.told[-1] == "RolloutPaused"
    assert "c1-app Degraded" in decode(world.annotations[STATE_ANNOTATION]).reason


# --- members from the fleet and the Applications ----------------------------------------------------


def test_a_cluster_held_by_the_upgrade_gate_is_gated() -> None:
    gated = replace(CLUSTERS[1], annotations={Annotation.UPGRADE_TO: "1.34", Annotation.UPGRADE_BLOCKERS: "2"})
    assert member(gated, []).gated
    clear = replace(CLUSTERS[1], annotations={Annotation.UPGRADE_TO: "1.34", Annotation.UPGRADE_BLOCKERS: "0"})
    assert not member(clear, []).gated


def test_applications_on_different_revisions_keep_nothing() -> None:
    apps = [AppStatus("a", "v1", True, True), AppStatus("b", "v2", True, True)]
    assert member(CLUSTERS[0], apps).revision == ""


def test_a_failing_application_is_named() -> None:
    apps = [AppStatus("a", "v2", True, True), AppStatus("b", "v2", True, False, "Degraded")]
    m = member(CLUSTERS[0], apps)
    assert (m.failing, m.application, m.healthy) == ("Degraded", "b", False)


def application(**status: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "c1-app"},
        "spec": {"source": {"targetRevision": "v2"}},
        "status": status,
    }


SYNCED = {"status": "Synced", "comparedTo": {"source": {"targetRevision": "v2"}}}


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (application(sync=SYNCED, health={"status": "Healthy"}), AppStatus("c1-app", "v2", True, True)),
        (application(sync={**SYNCED, "comparedTo": {"source": {"targetRevision": "v1"}}}, health={"status": "Healthy"}),
         AppStatus("c1-app", "v2", False, True)),
        (application(sync=SYNCED, health={"status": "Degraded"}), AppStatus("c1-app", "v2", True, False, "Degraded")),
        (application(sync={"status": "OutOfSync"}, operationState={"phase": "Failed"}),
         AppStatus("c1-app", "v2", False, False, "sync failed")),
        ({"metadata": {"name": "x"}, "spec": {"sources": [{"targetRevision": "v3"}]}}, AppStatus("x", "v3")),
        ({"metadata": {"name": "x"}, "spec": "hostile", "status": ["also"]}, AppStatus("x")),
        ({"metadata": {"name": "x"}, "spec": {"source": {"targetRevision": 5}}}, AppStatus("x")),
    ],
)  # fmt: skip
def test_what_a_rollout_reads_of_an_application(obj: dict[str, Any], expected: AppStatus) -> None:
    assert app_status(obj) == expected


def test_a_long_revision_is_cut() -> None:
    assert len(app_status({"spec": {"source": {"targetRevision": "x" * 10_000}}}).revision) == 256


def test_the_state_annotation_is_json() -> None:
    world = World()
    k, cache = keeper(world)
    look(world, k, cache, spec("v2"))
    assert json.loads(world.annotations[STATE_ANNOTATION])["v"] == 1


def test_a_state_annotation_nested_deeper_than_the_parser_goes_starts_over() -> None:
    # within the 256 KiB bound, "[[[[..." made json.loads raise RecursionError, which escaped as a 500
    world = World(annotations={STATE_ANNOTATION: "[" * 100_000})
    k, cache = keeper(world)
    assert look(world, k, cache, spec("v2")) == {"c1": "v2", "r1": "v1", "r2": "v1"}
    assert decode(world.annotations[STATE_ANNOTATION]).revision == "v2"


def test_each_wave_is_an_event_of_its_own_named_for_its_moment() -> None:
    canary = RolloutEvent(Reason.WAVE_BAKED, "rollout of v2: wave canary baked (1 clusters)")
    rest = RolloutEvent(Reason.WAVE_STARTED, "rollout of v2: wave rest started")
    at = 1_767_614_400_250_000_000  # 2026-01-05T12:00:00.25Z
    first, second = event_spec("argocd", APPSET, "u1", canary, at), event_spec("argocd", APPSET, "u1", rest, at + 1000)
    assert (first.object_kind, first.object_api_version, first.kind) == (
        "ApplicationSet",
        "argoproj.io/v1alpha1",
        "Normal",
    )
    assert first.object_name == f"{APPSET}.{at:x}" and first.object_name != second.object_name
    assert event_spec("argocd", APPSET, "u1", RolloutEvent(Reason.PAUSED, "paused", ("a",)), at).kind == "Warning"
    # the timeline reads the moment back from the name: the bake first, then the next wave, in one second
    read = [
        read_event(
            {"metadata": {"name": s.object_name}, "involvedObject": {"kind": "ApplicationSet", "name": APPSET},
             "reason": s.reason, "firstTimestamp": "2026-01-05T12:00:00Z"},  # type: ignore[typeddict-unknown-key]
            "event",
        )
        for s in (second, first)
    ]  # fmt: skip
    assert sorted(read, key=lambda e: e.first)[0].reason == "RolloutWaveBaked"
    assert read[1].first.microsecond == 250_000


class _Core:
    def __init__(self) -> None:
        self.created: list[dict[str, Any]] = []

    def create_namespaced_event(self, namespace: str, body: dict[str, Any]) -> None:
        self.created.append(body)


class _Kube:
    def __init__(self) -> None:
        self.core = _Core()

    def call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)


def test_the_recorder_keeps_nothing_of_one_occurrence_events() -> None:
    kube = _Kube()
    recorder = EventRecorder(kube, instance="test")  # type: ignore[arg-type]
    at = 1_767_614_400_000_000_000
    for n in range(50):  # a long-lived leader tells many waves: its memory stays bounded
        event = RolloutEvent(Reason.WAVE_STARTED, f"rollout of v{n}: wave canary started")
        recorder.record(event_spec("argocd", APPSET, "u1", event, at + n), "2026-01-05T12:00:00Z")
    assert len(kube.core.created) == 50
    assert len({b["metadata"]["name"] for b in kube.core.created}) == 50
    assert recorder._counts == {}
    involved = kube.core.created[0]["involvedObject"]
    assert (involved["kind"], involved["name"], involved["namespace"]) == ("ApplicationSet", APPSET, "argocd")
