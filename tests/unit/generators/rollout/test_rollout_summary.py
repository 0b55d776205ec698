"""What the keeper holds of each rollout for the fleet page: the kept state (the leader's own write, else the
annotation the watch shows), what this replica's last plan saw, nothing for ApplicationSets without a
rollout, an unreadable annotation told as such, and all of it from memory."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from argocd_lifecycle.generators.rollout import keeper as keeper_module
from argocd_lifecycle.generators.rollout.keeper import AppSetCache, RolloutKeeper
from argocd_lifecycle.generators.rollout.machine import ClusterRollout, Decision
from argocd_lifecycle.generators.rollout.state import STATE_ANNOTATION, Status, decode
from argocd_lifecycle.generators.rollout.summary import Planned, RolloutSummary, planned

from .test_rollout_keeper import APPSET, T0, World, keeper, look, roll, spec


def test_the_leader_shows_what_it_kept_and_planned() -> None:
    world = World()
    k, cache = keeper(world)
    look(world, k, cache, spec("v2"))
    (only,) = k.summaries()
    assert only.appset == APPSET and only.unreadable == ""
    assert only.state is not None
    assert (only.state.revision, only.state.status, only.state.wave) == ("v2", Status.ROLLING, 0)
    assert only.planned is not None and only.planned.waves == ("canary", "rest")
    assert only.wave_name == "canary"
    # the canary was given v2 (not yet Synced and Healthy at it), the rest wait
    assert dict(only.planned.states) == {"Rolling": 1, "Waiting": 2}
    assert (only.planned.at_revision, only.planned.clusters) == (0, 3)
    assert only.planned.at == datetime.fromtimestamp(T0, UTC)


def test_a_finished_rollout_counts_every_cluster_at_the_revision() -> None:
    world = World()
    k, cache = keeper(world)
    roll(world, k, cache, spec("v2", bake="1m"), 10)
    (only,) = k.summaries()
    assert only.state is not None and only.state.status is Status.DONE and only.state.wave == 2
    assert only.wave_name == ""  # past the last wave
    assert only.planned is not None and (only.planned.at_revision, only.planned.clusters) == (3, 3)


def test_a_replica_that_did_not_plan_shows_the_annotation_only() -> None:
    world = World()
    leader, cache = keeper(world)
    look(world, leader, cache, spec("v2"))
    follower, _ = keeper(world, leading=False)  # a fresh replica: its watch lists the annotation
    (only,) = follower.summaries()
    assert only.state == decode(world.annotations[STATE_ANNOTATION])
    assert only.planned is None and only.wave_name == ""


def test_applicationsets_without_a_rollout_are_not_listed() -> None:
    cache = AppSetCache()
    cache.listed([{"metadata": {"name": "plain"}}, {"metadata": {"name": "other", "annotations": {"x": "y"}}}])
    k = RolloutKeeper(cache, lambda appset: {}, lambda: True, World())
    assert k.summaries() == []


@pytest.mark.parametrize(
    "text", ["not json", "{}", '{"v":1}', '{"v":1,"wave":"<b>","status":"Rolling"}', "[" * 100_000, "x" * 300_000]
)
def test_an_unreadable_state_is_told_not_guessed(text: str) -> None:
    cache = AppSetCache()
    cache.listed([{"metadata": {"name": APPSET, "annotations": {STATE_ANNOTATION: text}}}])
    (only,) = RolloutKeeper(cache, lambda appset: {}, lambda: False, World()).summaries()
    assert only.state is None and only.planned is None
    assert only.unreadable.startswith(f"annotation {STATE_ANNOTATION}: ")
    assert text[:20] not in only.unreadable  # the message is ours, never the annotation's content


def test_an_applicationset_gone_from_the_watch_is_forgotten() -> None:
    world = World()
    k, cache = keeper(world, leading=False)
    look(world, k, cache, spec("v2"))
    assert [s.appset for s in k.summaries()] == [APPSET]
    cache.deleted({"metadata": {"name": APPSET}})
    assert k.summaries() == []
    cache.listed([{"metadata": {"name": APPSET}}])  # back, without state and not planned since
    assert k.summaries() == []


def test_summaries_read_only_memory_and_decode_an_annotation_once(monkeypatch: pytest.MonkeyPatch) -> None:
    world = World()
    leader, cache = keeper(world)
    look(world, leader, cache, spec("v2"))

    def no_statuses(appset: str) -> dict[tuple[str, str], list[object]]:
        raise AssertionError("a page view read the Applications")

    cache.listed([{"metadata": {"name": APPSET, "annotations": dict(world.annotations)}}])  # the watch brings it
    follower = RolloutKeeper(cache, no_statuses, lambda: False, World())  # type: ignore[arg-type]
    calls: list[str] = []
    real = keeper_module.decode
    monkeypatch.setattr(keeper_module, "decode", lambda text: calls.append(text) or real(text))
    for _ in range(5):
        (only,) = follower.summaries()
        assert only.state is not None and only.state.revision == "v2"
    assert len(calls) == 1
    # a new annotation is decoded anew
    world.annotations[STATE_ANNOTATION] = world.annotations[STATE_ANNOTATION].replace('"v2"', '"v9"', 1)
    cache.listed([{"metadata": {"name": APPSET, "annotations": dict(world.annotations)}}])
    (only,) = follower.summaries()
    assert only.state is not None and only.state.revision == "v9" and len(calls) == 2


def test_planned_counts_the_clusters_per_state() -> None:
    decisions = {
        "a": Decision("v2", "canary", ClusterRollout.DONE),
        "b": Decision("v2", "eu", ClusterRollout.BAKING),
        "c": Decision("v2", "eu", ClusterRollout.ROLLING),
        "d": Decision("v1", "rest", ClusterRollout.HELD),
        "e": Decision("v1", "rest", ClusterRollout.WAITING),
    }
    seen = planned(("canary", "eu", "rest"), decisions, datetime(2026, 1, 5, tzinfo=UTC))
    assert (seen.at_revision, seen.clusters) == (2, 5)
    assert dict(seen.states) == {"Rolling": 1, "Baking": 1, "Done": 1, "Held": 1, "Waiting": 1}
    assert RolloutSummary("x", planned=Planned(("a",))).wave_name == ""  # no state: no wave
