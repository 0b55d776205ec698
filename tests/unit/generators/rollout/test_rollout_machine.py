"""Table tests of the pure rollout state machine: waves, bake, pause/resume/abort, maxUnavailable,
windows, restarts, rollback; a small fleet that applies each answer as Argo CD would."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from argocd_lifecycle.generators.rollout.machine import ClusterRollout, Member, Step, decisions, step
from argocd_lifecycle.generators.rollout.spec import RolloutSpec, parse_rollout
from argocd_lifecycle.generators.rollout.state import Control, RolloutState, Status, decode, encode
from argocd_lifecycle.generators.rollout.windows import WINDOWS_ANNOTATION
from argocd_lifecycle.model import Phase

T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)  # a Monday, noon UTC
OLD, NEW = "v1.0.0", "v2.0.0"


def spec(revision: str = NEW, **extra: object) -> RolloutSpec:
    data: dict[str, object] = {
        "revision": revision,
        "waves": [
            {"name": "canary", "labelSelector": {"matchLabels": {"tier": "canary"}}},
            {"name": "eu", "labelSelector": {"matchLabels": {"region": "eu"}}},
            {"name": "rest"},
        ],
        "bakeTime": "10m",
        "maxUnavailable": 1,
    }
    data.update(extra)
    return parse_rollout(data)


def member(name: str, revision: str = OLD, **kw: object) -> Member:
    labels = {"c1": {"tier": "canary"}, "e1": {"region": "eu"}, "e2": {"region": "eu"}}.get(name, {})
    fields: dict[str, object] = {"labels": labels, "revision": revision, "synced": True, "healthy": True}
    fields.update(kw)
    return Member(name, application=f"app-{name}", **fields)  # type: ignore[arg-type]


FLEET = ("c1", "e1", "e2", "r1", "r2")


def fleet(*names: str, revision: str = OLD) -> list[Member]:
    return [member(n, revision) for n in (names or FLEET)]


def apply(members: list[Member], result: Step) -> list[Member]:
    """Argo CD applies each answer: the Application targets the decided revision, Synced and Healthy."""
    out = []
    for m in members:
        d = result.decisions[m.name]
        out.append(replace(m, revision=d.revision) if m.ready else m)
    return out


def run(state: RolloutState | None, s: RolloutSpec, members: list[Member], now: datetime, **kw: object) -> Step:
    return step(state, s, members, now, **kw)  # type: ignore[arg-type]


def revisions(result: Step) -> dict[str, str]:
    return {n: d.revision for n, d in result.decisions.items()}


def states(result: Step) -> dict[str, str]:
    return {n: d.state.value for n, d in result.decisions.items()}


def reasons(result: Step) -> list[str]:
    return [e.reason.value for e in result.events]


def drive(
    members: list[Member], s: RolloutSpec, until: datetime, state: RolloutState | None = None, every: float = 60
) -> tuple[RolloutState, list[Member], list[str]]:
    """Step every ``every`` seconds from T0 to ``until``, applying each answer; all events told."""
    now, told = T0, []
    while now <= until:
        result = run(state, s, members, now)
        state, members = result.state, apply(members, result)
        told += reasons(result)
        now += timedelta(seconds=every)
    assert state is not None
    return state, members, told


# --- the first step ------------------------------------------------------------------------------


def test_first_step_gives_the_canary_only() -> None:
    result = run(None, spec(), fleet(), T0)
    assert revisions(result) == {"c1": NEW, "e1": OLD, "e2": OLD, "r1": OLD, "r2": OLD}
    assert result.state.status is Status.ROLLING and result.state.wave == 0
    assert result.state.previous == OLD
    assert reasons(result) == ["RolloutWaveStarted"]


def test_first_step_names_the_waves() -> None:
    result = run(None, spec(), fleet(), T0)
    assert {n: d.wave for n, d in result.decisions.items()} == {
        "c1": "canary", "e1": "eu", "e2": "eu", "r1": "rest", "r2": "rest",
    }  # fmt: skip


def test_first_step_states() -> None:
    result = run(None, spec(), fleet(), T0)
    assert states(result) == {"c1": "Rolling", "e1": "Waiting", "e2": "Waiting", "r1": "Waiting", "r2": "Waiting"}


def test_a_fleet_already_at_the_revision_is_adopted_as_done() -> None:
    result = run(None, spec(), fleet(revision=NEW), T0)
    assert result.state.status is Status.DONE
    assert result.events == ()
    assert set(states(result).values()) == {"Done"}


def test_a_fleet_without_applications_gets_the_revision_at_once() -> None:
    result = run(None, spec(), fleet(revision=""), T0)
    assert result.state.status is Status.DONE
    assert set(revisions(result).values()) == {NEW}


def test_previous_is_the_revision_most_clusters_run() -> None:
    members = [*fleet("c1", "e1", "e2"), member("r1", "v0.9.0")]
    assert run(None, spec(), members, T0).state.previous == OLD


def test_a_cluster_no_wave_selects_keeps_its_revision() -> None:
    s = parse_rollout(
        {"revision": NEW, "waves": [{"name": "canary", "labelSelector": {"matchLabels": {"tier": "canary"}}}]}
    )
    state, members, _ = drive(fleet("c1", "r1"), s, T0 + timedelta(minutes=5))
    assert {m.name: m.revision for m in members} == {"c1": NEW, "r1": OLD}
    assert state.status is Status.DONE
    assert run(state, s, members, T0).decisions["r1"].wave == ""


# --- bake -------------------------------------------------------------------------------------------


def test_canary_at_the_revision_starts_baking() -> None:
    first = run(None, spec(), fleet(), T0)
    second = run(first.state, spec(), apply(fleet(), first), T0 + timedelta(minutes=1))
    assert second.state.status is Status.BAKING
    assert second.state.baked_since == T0 + timedelta(minutes=1)
    assert second.decisions["c1"].state is ClusterRollout.BAKING
    assert second.wake == T0 + timedelta(minutes=11)


def test_the_next_wave_waits_out_the_bake() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(minutes=10))
    assert state.wave == 0 and state.status is Status.BAKING
    assert {m.name: m.revision for m in members}["e1"] == OLD


def test_after_the_bake_the_next_wave_starts() -> None:
    state, _members, told = drive(fleet(), spec(), T0 + timedelta(minutes=11))
    assert state.wave == 1
    assert told[:3] == ["RolloutWaveStarted", "RolloutWaveBaked", "RolloutWaveStarted"]


def test_max_unavailable_one_gives_one_cluster_of_a_wave_at_a_time() -> None:
    _state, members, _ = drive(fleet(), spec(), T0 + timedelta(minutes=11))
    assert [m.revision for m in members if m.name in ("e1", "e2")].count(NEW) == 1


def test_a_whole_rollout_finishes() -> None:
    state, members, told = drive(fleet(), spec(), T0 + timedelta(hours=1))
    assert state.status is Status.DONE and state.wave == 3
    assert {m.revision for m in members} == {NEW}
    assert told.count("RolloutWaveBaked") == 3 and told[-1] == "RolloutFinished"
    assert told.count("RolloutWaveStarted") == 3


def test_done_clusters_say_done() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    assert set(states(run(state, spec(), members, T0 + timedelta(hours=2))).values()) == {"Done"}


def test_bake_zero_moves_on_at_once() -> None:
    state, _, _ = drive(fleet(), spec(bakeTime="0s"), T0 + timedelta(minutes=10))
    assert state.status is Status.DONE


def test_bake_restarts_when_a_cluster_falls_out_of_sync() -> None:
    first = run(None, spec(), fleet(), T0)
    members = apply(fleet(), first)
    baking = run(first.state, spec(), members, T0 + timedelta(minutes=1))
    assert baking.state.status is Status.BAKING
    unsynced = [replace(m, synced=False) if m.name == "c1" else m for m in members]
    back = run(baking.state, spec(), unsynced, T0 + timedelta(minutes=5))
    assert back.state.status is Status.ROLLING and back.state.baked_since is None
    again = run(back.state, spec(), members, T0 + timedelta(minutes=6))
    assert again.state.baked_since == T0 + timedelta(minutes=6)


def test_an_unhealthy_application_does_not_bake() -> None:
    first = run(None, spec(), fleet(), T0)
    members = [replace(m, healthy=m.name != "c1") for m in apply(fleet(), first)]
    later = run(first.state, spec(), members, T0 + timedelta(hours=1))
    assert later.state.status is Status.ROLLING and later.state.wave == 0


def test_an_empty_wave_passes() -> None:
    state, members, _ = drive(fleet("r1", "r2"), spec(bakeTime="1m"), T0 + timedelta(minutes=10))
    assert state.status is Status.DONE and {m.revision for m in members} == {NEW}


# --- maxUnavailable ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("budget", "size", "given"),
    [(1, 4, 1), (2, 4, 2), (10, 4, 4), ("25%", 4, 1), ("50%", 4, 2), ("100%", 4, 4), ("10%", 4, 1), ("2", 4, 2)],
)
def test_max_unavailable_bounds_each_round(budget: object, size: int, given: int) -> None:
    s = parse_rollout({"revision": NEW, "waves": [{"name": "all"}], "maxUnavailable": budget})
    members = [member(f"r{i}") for i in range(size)]
    assert list(revisions(run(None, s, members, T0)).values()).count(NEW) == given


def test_a_wave_budget_wins_over_the_rollout_budget() -> None:
    s = parse_rollout({"revision": NEW, "waves": [{"name": "all", "maxUnavailable": 3}], "maxUnavailable": 1})
    members = [member(f"r{i}") for i in range(4)]
    assert list(revisions(run(None, s, members, T0)).values()).count(NEW) == 3


@pytest.mark.parametrize(
    "phase", [Phase.UPGRADING, Phase.UNREACHABLE, Phase.DEGRADED, Phase.DECOMMISSIONING, Phase.PENDING]
)
def test_a_cluster_not_ready_keeps_its_revision_and_uses_the_budget(phase: Phase) -> None:
    s = parse_rollout({"revision": NEW, "waves": [{"name": "all"}], "maxUnavailable": 1})
    members = [member("r1", phase=phase), member("r2")]
    result = run(None, s, members, T0)
    assert result.decisions["r1"] == replace(result.decisions["r1"], revision=OLD, state=ClusterRollout.HELD)
    assert result.decisions["r2"].revision == OLD  # the budget of one is taken by r1


def test_a_cluster_held_by_the_upgrade_gate_is_held() -> None:
    s = parse_rollout({"revision": NEW, "waves": [{"name": "all"}], "maxUnavailable": 2})
    result = run(None, s, [member("r1", gated=True), member("r2"), member("r3")], T0)
    assert states(result) == {"r1": "Held", "r2": "Rolling", "r3": "Waiting"}


def test_a_held_cluster_blocks_its_wave_until_ready() -> None:
    s = parse_rollout({"revision": NEW, "waves": [{"name": "all"}], "maxUnavailable": 2, "bakeTime": "0s"})
    members = [member("r1", phase=Phase.UNREACHABLE), member("r2")]
    state, members, _ = drive(members, s, T0 + timedelta(minutes=5))
    assert state.status is Status.ROLLING
    assert {m.name: m.revision for m in members} == {"r1": OLD, "r2": NEW}


def test_a_held_cluster_catches_up_when_ready_again() -> None:
    s = parse_rollout({"revision": NEW, "waves": [{"name": "all"}], "maxUnavailable": 2, "bakeTime": "0s"})
    members = [member("r1", phase=Phase.UNREACHABLE), member("r2")]
    state, members, _ = drive(members, s, T0 + timedelta(minutes=5))
    back = [replace(m, phase=Phase.READY) for m in members]
    state, members, told = drive(back, s, T0 + timedelta(minutes=3), state)
    assert state.status is Status.DONE and {m.revision for m in members} == {NEW}
    assert told[-1] == "RolloutFinished"


def test_a_decommissioning_cluster_does_not_block_its_wave() -> None:
    s = parse_rollout({"revision": NEW, "waves": [{"name": "all"}], "maxUnavailable": 2, "bakeTime": "0s"})
    members = [member("r1", phase=Phase.DECOMMISSIONING), member("r2")]
    state, members, _ = drive(members, s, T0 + timedelta(minutes=3))
    assert state.status is Status.DONE
    assert {m.name: m.revision for m in members} == {"r1": OLD, "r2": NEW}


def test_a_given_cluster_that_goes_down_keeps_the_new_revision() -> None:
    first = run(None, spec(), fleet(), T0)
    down = [replace(m, phase=Phase.UNREACHABLE) if m.name == "c1" else m for m in fleet()]
    later = run(first.state, spec(), down, T0 + timedelta(minutes=1))
    assert later.decisions["c1"].revision == NEW


def test_a_cluster_upgrading_is_given_nothing_while_it_upgrades() -> None:
    s = parse_rollout({"revision": NEW, "waves": [{"name": "all"}], "maxUnavailable": "100%", "bakeTime": "0s"})
    members = [member("r1", phase=Phase.UPGRADING), member("r2")]
    state, members, _ = drive(members, s, T0 + timedelta(minutes=3))
    assert {m.name: m.revision for m in members} == {"r1": OLD, "r2": NEW}
    assert run(state, s, members, T0).decisions["r1"].state is ClusterRollout.HELD


# --- admitted mid-rollout --------------------------------------------------------------------------


def test_a_cluster_admitted_into_a_passed_wave_gets_the_new_revision() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(minutes=11))
    assert state.wave == 1
    newcomer = member("c2", "", labels={"tier": "canary"})
    result = run(state, spec(), [*members, newcomer], T0 + timedelta(minutes=12))
    assert result.decisions["c2"].revision == NEW


def test_a_cluster_admitted_into_a_wave_not_reached_gets_the_previous_revision() -> None:
    first = run(None, spec(), fleet(), T0)
    result = run(first.state, spec(), [*apply(fleet(), first), member("r9", "")], T0 + timedelta(minutes=1))
    assert result.decisions["r9"] == replace(result.decisions["r9"], revision=OLD, state=ClusterRollout.WAITING)


def test_a_cluster_admitted_into_the_rolling_wave_waits_for_the_budget() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(minutes=11))
    newcomer = member("e3", "", labels={"region": "eu"})
    result = run(state, spec(), [*members, newcomer], T0 + timedelta(minutes=11, seconds=30))
    assert result.decisions["e3"].revision == OLD


def test_a_cluster_admitted_after_the_rollout_finished_gets_it() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    result = run(state, spec(), [*members, member("r9", "")], T0 + timedelta(hours=2))
    assert result.decisions["r9"] == replace(result.decisions["r9"], revision=NEW)


def test_a_cluster_admitted_not_ready_waits_for_ready() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    result = run(state, spec(), [*members, member("r9", "", phase=Phase.PENDING)], T0 + timedelta(hours=2))
    assert result.decisions["r9"].state is ClusterRollout.HELD
    assert "r9" not in result.state.given


# --- wave label --------------------------------------------------------------------------------------


def test_a_wave_label_names_the_wave() -> None:
    s = spec(waveLabel="example.com/wave")
    result = run(None, s, [member("r1", labels={"example.com/wave": "canary"}), member("c1")], T0)
    assert result.decisions["r1"].wave == "canary" and result.decisions["r1"].revision == NEW


def test_a_wave_label_naming_no_wave_falls_back_to_the_selectors() -> None:
    s = spec(waveLabel="example.com/wave")
    result = run(None, s, [member("r1", labels={"example.com/wave": "nope"}), member("c1")], T0)
    assert result.decisions["r1"].wave == "rest"


def test_the_first_wave_that_selects_wins() -> None:
    result = run(None, spec(), [member("x", labels={"tier": "canary", "region": "eu"}), member("r1")], T0)
    assert result.decisions["x"].wave == "canary"


def test_match_expressions_select_a_wave() -> None:
    eu = {"matchExpressions": [{"key": "region", "operator": "In", "values": ["eu"]}]}
    s = parse_rollout({"revision": NEW, "waves": [{"name": "eu", "labelSelector": eu}, {"name": "rest"}]})
    assert run(None, s, fleet(), T0).decisions["e1"].wave == "eu"


# --- pause, resume, abort ------------------------------------------------------------------------------


def degraded(members: list[Member], name: str, why: str = "Degraded") -> list[Member]:
    return [replace(m, failing=why, healthy=False) if m.name == name else m for m in members]


def test_a_degraded_application_of_the_wave_pauses_the_rollout() -> None:
    first = run(None, spec(), fleet(), T0)
    members = degraded(apply(fleet(), first), "c1")
    result = run(first.state, spec(), members, T0 + timedelta(minutes=1))
    assert result.state.status is Status.PAUSED
    assert reasons(result) == ["RolloutPaused"]
    assert result.events[0].applications == ("app-c1",)
    assert "app-c1 Degraded" in result.events[0].message and result.events[0].warning


def test_a_sync_failure_pauses_the_rollout() -> None:
    first = run(None, spec(), fleet(), T0)
    result = run(first.state, spec(), degraded(apply(fleet(), first), "c1", "sync failed"), T0 + timedelta(minutes=1))
    assert result.state.status is Status.PAUSED and "sync failed" in result.state.reason


def test_a_degraded_application_not_given_the_revision_does_not_pause() -> None:
    first = run(None, spec(), fleet(), T0)
    result = run(first.state, spec(), degraded(apply(fleet(), first), "r1"), T0 + timedelta(minutes=1))
    assert result.state.status is Status.BAKING


def test_paused_gives_nothing_more() -> None:
    first = run(None, spec(), fleet(), T0)
    members = degraded(apply(fleet(), first), "c1")
    paused = run(first.state, spec(), members, T0 + timedelta(minutes=1))
    later = run(paused.state, spec(), members, T0 + timedelta(hours=5))
    assert later.state.status is Status.PAUSED and later.events == ()
    assert revisions(later) == {"c1": NEW, "e1": OLD, "e2": OLD, "r1": OLD, "r2": OLD}


def test_paused_keeps_given_clusters_on_the_new_revision() -> None:
    first = run(None, spec(), fleet(), T0)
    paused = run(first.state, spec(), degraded(apply(fleet(), first), "c1"), T0 + timedelta(minutes=1))
    assert paused.decisions["c1"].revision == NEW


def test_paused_clusters_of_the_wave_say_paused() -> None:
    s = parse_rollout({"revision": NEW, "waves": [{"name": "all"}], "maxUnavailable": 1})
    first = run(None, s, fleet("r1", "r2"), T0)
    paused = run(first.state, s, degraded(apply(fleet("r1", "r2"), first), "r1"), T0 + timedelta(minutes=1))
    assert paused.decisions["r2"].state is ClusterRollout.PAUSED


def test_the_pause_annotation_pauses() -> None:
    first = run(None, spec(), fleet(), T0)
    result = run(first.state, spec(), apply(fleet(), first), T0 + timedelta(minutes=1), control=Control.PAUSE)
    assert result.state.status is Status.PAUSED and result.state.reason == "paused by annotation"
    assert reasons(result) == ["RolloutPaused"] and not result.consumed


def test_the_pause_annotation_holds_while_set() -> None:
    first = run(None, spec(), fleet(), T0)
    members = apply(fleet(), first)
    paused = run(first.state, spec(), members, T0 + timedelta(minutes=1), control=Control.PAUSE)
    later = run(paused.state, spec(), members, T0 + timedelta(hours=1), control=Control.PAUSE)
    assert later.state.status is Status.PAUSED and later.events == ()


def test_removing_the_pause_annotation_does_not_resume() -> None:
    first = run(None, spec(), fleet(), T0)
    members = apply(fleet(), first)
    paused = run(first.state, spec(), members, T0 + timedelta(minutes=1), control=Control.PAUSE)
    assert run(paused.state, spec(), members, T0 + timedelta(hours=1)).state.status is Status.PAUSED


def test_resume_continues_and_is_consumed() -> None:
    first = run(None, spec(), fleet(), T0)
    members = apply(fleet(), first)
    paused = run(first.state, spec(), members, T0 + timedelta(minutes=1), control=Control.PAUSE)
    resumed = run(paused.state, spec(), members, T0 + timedelta(minutes=2), control=Control.RESUME)
    assert resumed.consumed and reasons(resumed) == ["RolloutResumed"]
    assert resumed.state.status is Status.BAKING  # the canary is at the revision: baking from now
    assert resumed.state.baked_since == T0 + timedelta(minutes=2)


def test_resume_accepts_the_failure_that_paused() -> None:
    first = run(None, spec(), fleet(), T0)
    members = degraded(apply(fleet(), first), "c1")
    paused = run(first.state, spec(), members, T0 + timedelta(minutes=1))
    resumed = run(paused.state, spec(), members, T0 + timedelta(minutes=2), control=Control.RESUME)
    assert resumed.state.status is Status.ROLLING and resumed.state.acknowledged == {"c1"}
    again = run(resumed.state, spec(), members, T0 + timedelta(minutes=3))
    assert again.state.status is Status.ROLLING and again.events == ()


def test_an_accepted_failure_that_recovers_and_fails_again_pauses_again() -> None:
    first = run(None, spec(), fleet(), T0)
    ok = apply(fleet(), first)
    paused = run(first.state, spec(), degraded(ok, "c1"), T0 + timedelta(minutes=1))
    resumed = run(paused.state, spec(), degraded(ok, "c1"), T0 + timedelta(minutes=2), control=Control.RESUME)
    healed = run(resumed.state, spec(), ok, T0 + timedelta(minutes=3))
    assert healed.state.acknowledged == frozenset()
    again = run(healed.state, spec(), degraded(ok, "c1"), T0 + timedelta(minutes=4))
    assert again.state.status is Status.PAUSED


def test_resume_when_not_paused_is_consumed_and_changes_nothing() -> None:
    first = run(None, spec(), fleet(), T0)
    result = run(first.state, spec(), fleet(), T0, control=Control.RESUME)
    assert result.consumed and result.events == () and result.state.status is Status.ROLLING


def test_abort_stops_and_keeps_what_runs() -> None:
    first = run(None, spec(), fleet(), T0)
    members = apply(fleet(), first)
    aborted = run(first.state, spec(), members, T0 + timedelta(minutes=1), control=Control.ABORT)
    assert aborted.state.status is Status.ABORTED and aborted.consumed
    assert reasons(aborted) == ["RolloutAborted"]
    assert revisions(aborted) == {"c1": NEW, "e1": OLD, "e2": OLD, "r1": OLD, "r2": OLD}


def test_aborted_stays_aborted_after_hours() -> None:
    first = run(None, spec(), fleet(), T0)
    aborted = run(first.state, spec(), apply(fleet(), first), T0, control=Control.ABORT)
    later = run(aborted.state, spec(), apply(fleet(), first), T0 + timedelta(hours=3))
    assert later.state.status is Status.ABORTED and later.events == ()


def test_resume_does_not_lift_an_abort() -> None:
    first = run(None, spec(), fleet(), T0)
    aborted = run(first.state, spec(), fleet(), T0, control=Control.ABORT)
    assert run(aborted.state, spec(), fleet(), T0, control=Control.RESUME).state.status is Status.ABORTED


def test_aborted_gives_nothing_to_stragglers() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(minutes=11))
    aborted = run(state, spec(), members, T0 + timedelta(minutes=12), control=Control.ABORT)
    result = run(
        aborted.state, spec(), [*members, member("c9", "", labels={"tier": "canary"})], T0 + timedelta(hours=1)
    )
    assert result.decisions["c9"].revision == OLD


def test_abort_when_done_changes_nothing() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    result = run(state, spec(), members, T0 + timedelta(hours=2), control=Control.ABORT)
    assert result.state.status is Status.DONE and result.consumed and result.events == ()


def test_pause_when_done_changes_nothing() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    result = run(state, spec(), members, T0 + timedelta(hours=2), control=Control.PAUSE)
    assert result.state.status is Status.DONE and result.events == ()


def test_a_new_revision_after_an_abort_starts_a_rollout() -> None:
    first = run(None, spec(), fleet(), T0)
    aborted = run(first.state, spec(), apply(fleet(), first), T0, control=Control.ABORT)
    result = run(aborted.state, spec("v3.0.0"), apply(fleet(), first), T0 + timedelta(minutes=1))
    assert result.state.status is Status.ROLLING and result.state.revision == "v3.0.0"


def test_a_paused_rollout_gives_stragglers_nothing() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(minutes=11))
    paused = run(state, spec(), members, T0 + timedelta(minutes=12), control=Control.PAUSE)
    result = run(
        paused.state,
        spec(),
        [*members, member("c9", "", labels={"tier": "canary"})],
        T0 + timedelta(hours=1),
        control=Control.PAUSE,
    )
    assert result.decisions["c9"].revision == OLD


# --- windows -----------------------------------------------------------------------------------------


NIGHTS = [{"schedule": "0 22 * * *", "duration": "4h", "timeZone": "UTC"}]


def test_outside_its_window_a_cluster_waits() -> None:
    result = run(None, spec(windows=NIGHTS), fleet(), T0)  # noon
    assert result.decisions["c1"] == replace(result.decisions["c1"], revision=OLD, state=ClusterRollout.WAITING)


def test_inside_its_window_a_cluster_rolls() -> None:
    result = run(None, spec(windows=NIGHTS), fleet(), T0.replace(hour=23))
    assert result.decisions["c1"].revision == NEW


def test_a_window_past_midnight_is_still_open() -> None:
    result = run(None, spec(windows=NIGHTS), fleet(), T0.replace(hour=1, minute=59))
    assert result.decisions["c1"].revision == NEW


def test_a_window_ends_after_its_duration() -> None:
    result = run(None, spec(windows=NIGHTS), fleet(), T0.replace(hour=2))
    assert result.decisions["c1"].revision == OLD


def test_a_window_in_a_time_zone() -> None:
    berlin = [{"schedule": "0 22 * * *", "duration": "1h", "timeZone": "Europe/Berlin"}]
    assert run(None, spec(windows=berlin), fleet(), T0.replace(hour=21, minute=30)).decisions["c1"].revision == NEW
    assert run(None, spec(windows=berlin), fleet(), T0.replace(hour=22, minute=30)).decisions["c1"].revision == OLD


def test_a_deny_window_closes_an_allowed_time() -> None:
    deny = [{"schedule": "0 12 * * 1", "duration": "1h", "kind": "deny"}]
    assert run(None, spec(windows=deny), fleet(), T0).decisions["c1"].revision == OLD
    assert run(None, spec(windows=deny), fleet(), T0.replace(hour=14)).decisions["c1"].revision == NEW


def test_a_wave_window_wins_over_the_rollout_window() -> None:
    s = parse_rollout({
        "revision": NEW, "windows": NIGHTS,
        "waves": [{"name": "all", "windows": [{"schedule": "0 11 * * *", "duration": "2h"}]}],
    })  # fmt: skip
    assert run(None, s, fleet("r1"), T0).decisions["r1"].revision == NEW


def test_a_cluster_window_wins_over_the_wave_window() -> None:
    own = {WINDOWS_ANNOTATION: json.dumps([{"schedule": "0 11 * * *", "duration": "2h"}])}
    members = [member("c1", annotations=own), *fleet("r1")]
    assert run(None, spec(windows=NIGHTS), members, T0).decisions["c1"].revision == NEW


def test_a_cluster_window_that_does_not_parse_keeps_it_waiting() -> None:
    members = [member("c1", annotations={WINDOWS_ANNOTATION: "every night"}), *fleet("r1")]
    assert run(None, spec(), members, T0).decisions["c1"].revision == OLD


def test_a_closed_window_does_not_use_the_budget() -> None:
    own = {WINDOWS_ANNOTATION: json.dumps(NIGHTS)}
    s = parse_rollout({"revision": NEW, "waves": [{"name": "all"}], "maxUnavailable": 1})
    result = run(None, s, [member("r1", annotations=own), member("r2")], T0)
    assert revisions(result) == {"r1": OLD, "r2": NEW}


def test_a_wave_waits_for_its_window_to_finish() -> None:
    s = spec(windows=NIGHTS, bakeTime="0s")
    state, members, _ = drive(fleet(), s, T0 + timedelta(hours=5))  # noon to 17:00: closed
    assert state.wave == 0 and {m.revision for m in members} == {OLD}
    state, members, _ = drive(members, s, T0 + timedelta(hours=12), state, every=600)  # into the night
    assert state.status is Status.DONE


# --- restarts -----------------------------------------------------------------------------------------


def test_a_restart_resumes_from_the_encoded_state() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(minutes=11))
    restored = decode(encode(state))
    assert restored == state
    ours = run(state, spec(), members, T0 + timedelta(minutes=12))
    theirs = run(restored, spec(), members, T0 + timedelta(minutes=12))
    assert ours == theirs


def test_a_restart_mid_bake_keeps_the_bake_start() -> None:
    first = run(None, spec(), fleet(), T0)
    baking = run(first.state, spec(), apply(fleet(), first), T0 + timedelta(minutes=1))
    restored = decode(encode(baking.state))
    assert restored.baked_since == T0 + timedelta(minutes=1)
    after = run(restored, spec(), apply(fleet(), first), T0 + timedelta(minutes=11))
    assert after.state.wave == 1


def test_a_restart_without_state_never_moves_a_cluster_back() -> None:
    _state, members, _ = drive(fleet(), spec(), T0 + timedelta(minutes=30))
    fresh = run(None, spec(), members, T0 + timedelta(minutes=31))
    for m in members:
        if m.revision == NEW:
            assert fresh.decisions[m.name].revision == NEW


def test_followers_answer_from_the_state_without_advancing() -> None:
    first = run(None, spec(), fleet(), T0)
    view = decisions(first.state, spec(), apply(fleet(), first))
    assert {n: d.revision for n, d in view.items()} == revisions(first)


def test_a_step_is_a_pure_function() -> None:
    members = fleet()
    assert run(None, spec(), members, T0) == run(None, spec(), members, T0)


# --- consecutive rollouts and rollback ------------------------------------------------------------


def test_consecutive_rollouts_each_advance_to_done() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    for n, revision in enumerate(("v3.0.0", "v4.0.0", "v5.0.0"), start=1):
        later = T0 + timedelta(hours=2 * n)
        state, members, told = drive(members, spec(revision), later, state)
        assert state.status is Status.DONE and state.revision == revision, revision
        assert {m.revision for m in members} == {revision}
        assert told[0] == "RolloutWaveStarted" and told[-1] == "RolloutFinished"


def test_history_records_each_rolled_revision() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    state, members, _ = drive(members, spec("v3.0.0"), T0 + timedelta(hours=2), state)
    assert state.history == (OLD, NEW) and state.previous == NEW


def test_a_second_rollout_starts_from_the_first_wave() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    result = run(state, spec("v3.0.0"), members, T0 + timedelta(hours=2))
    assert result.state.wave == 0 and revisions(result)["c1"] == "v3.0.0" and revisions(result)["e1"] == NEW


def test_an_older_revision_is_refused_without_rollback() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    state, members, _ = drive(members, spec("v3.0.0"), T0 + timedelta(hours=2), state)
    refused = run(state, spec(NEW), members, T0 + timedelta(hours=3))
    assert reasons(refused) == ["RolloutRefused"] and refused.events[0].warning
    assert set(revisions(refused).values()) == {"v3.0.0"}
    again = run(refused.state, spec(NEW), members, T0 + timedelta(hours=4))
    assert again.events == ()  # told once


def test_a_declared_rollback_rolls_the_older_revision_in_waves() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    state, members, _ = drive(members, spec("v3.0.0"), T0 + timedelta(hours=2), state)
    result = run(state, spec(NEW, rollback=True), members, T0 + timedelta(hours=3))
    assert result.state.revision == NEW and result.state.status is Status.ROLLING
    assert revisions(result)["c1"] == NEW and revisions(result)["e1"] == "v3.0.0"
    assert result.events[0].message.startswith("rollback of")


def test_after_a_rollback_the_rolled_back_revision_may_roll_again() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    state, members, _ = drive(members, spec("v3.0.0"), T0 + timedelta(hours=2), state)
    state, members, _ = drive(members, spec(NEW, rollback=True), T0 + timedelta(hours=3), state)
    assert state.history == (OLD,)  # the revisions after v2 are forgotten
    result = run(state, spec("v3.0.0"), members, T0 + timedelta(hours=4))
    assert result.state.revision == "v3.0.0" and reasons(result) == ["RolloutWaveStarted"]


def test_a_new_revision_mid_rollout_keeps_the_half_rolled_one_where_given() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(minutes=11))
    result = run(state, spec("v3.0.0"), members, T0 + timedelta(minutes=12))
    given_v2 = [m.name for m in members if m.revision == NEW]
    assert result.state.previous == OLD  # v2 never finished
    for name in given_v2:
        assert revisions(result)[name] in (NEW, "v3.0.0")
    assert NEW in result.state.history


def test_history_is_bounded() -> None:
    state, members, _ = drive(fleet(), spec(bakeTime="0s"), T0 + timedelta(minutes=5))
    for n in range(20):
        state, members, _ = drive(members, spec(f"v9.{n}", bakeTime="0s"), T0 + timedelta(minutes=5), state)
    assert len(state.history) == 16


def test_the_first_revision_counts_as_rolled_before() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    assert reasons(run(state, spec(OLD), members, T0 + timedelta(hours=2))) == ["RolloutRefused"]


def test_rollback_true_with_a_new_revision_is_an_ordinary_rollout() -> None:
    state, members, _ = drive(fleet(), spec(), T0 + timedelta(hours=1))
    result = run(state, spec("v3.0.0", rollback=True), members, T0 + timedelta(hours=2))
    assert result.events[0].message.startswith("rollout of")


def test_a_rollout_never_adds_or_removes_a_cluster() -> None:
    members = fleet()
    for now in (T0, T0 + timedelta(hours=1)):
        assert set(run(None, spec(), members, now).decisions) == set(FLEET)
