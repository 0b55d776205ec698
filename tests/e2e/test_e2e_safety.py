"""The mass-drop guard against each way it used to be bypassed, with the real ApplicationSet and application
controllers, two generator replicas and leader election.

Every scenario starts and ends with the rig whole (every cluster Ready with its Application) and checks
what matters: the Applications Argo CD kept, and a hold that is visible (the ApplicationSet's error, the
replicas' 503, one Event, one receiver message per episode). Runs on the session rig (tests/e2e/conftest.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import RIG_CLUSTERS
from tests.harness.fleet import PREFIX, SELECTED, Rig, cluster_name
from tests.harness.guard import (
    HELD,
    DeletionWatch,
    appset_error,
    ask,
    held_messages,
    refresh,
    wait_held,
    wait_released,
)
from tests.harness.loop import record
from tests.harness.procs import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


@pytest.fixture
def deletions(rig: Rig) -> Iterator[DeletionWatch]:
    """No scenario may delete an Application unless it says so; and each leaves the rig whole."""
    watcher = DeletionWatch(rig)
    uids = {name: app["metadata"]["uid"] for name, app in rig.applications().items()}
    assert len(uids) == RIG_CLUSTERS
    try:
        yield watcher
    finally:
        watcher.close()


def _uids(rig: Rig) -> dict[str, str]:
    return {name: app["metadata"]["uid"] for name, app in rig.applications().items()}


def _held_by_both_replicas(rig: Rig, parameters: dict[str, object]) -> None:
    """Each running replica answers the hold (after its own settle window: it judges what it sees)."""
    for i, replica in enumerate(rig.replicas):
        if replica.process is not None:
            _first_answers_never_lose_clusters(rig, i, parameters)


def _edit(rig: Rig, parameters: dict[str, object], timings: dict[str, float], key: str) -> str:
    """Edit the ApplicationSet's input; wait for Argo CD to show the hold; returns its message."""
    started = time.monotonic()
    rig.apply_appset(parameters)
    message = wait_held(rig)
    record(timings, key, time.monotonic() - started)
    return message


def test_a_selector_edit_is_held_visibly_and_released_by_reverting_it(
    rig: Rig, deletions: DeletionWatch, timings: dict[str, float]
) -> None:
    before, told, events = _uids(rig), len(held_messages(rig)), rig.appset_events("MassDropHeld")
    typo = {"labelSelector": {"matchExpressions": [{"key": "env", "operator": "In", "values": ["sook"]}]}}
    message = _edit(rig, typo, timings, "selector_edit_to_held_s")
    assert f"would drop {RIG_CLUSTERS} of the {RIG_CLUSTERS} clusters" in message and "allowMassDrop" in message
    _held_by_both_replicas(rig, typo)
    wait_until(lambda: len(held_messages(rig)) == told + 1, timeout=60, what="the held message at the sink")
    body = held_messages(rig)[-1].body
    assert "ApplicationSet 'soak'" in body["text"] and cluster_name(0) in body["text"]
    wait_until(lambda: rig.appset_events("MassDropHeld") == events + 1, timeout=30, what="the MassDropHeld Event")
    refresh(rig)  # Argo CD asks again: the same episode, nothing told twice
    time.sleep(5)
    assert HELD in appset_error(rig) and len(held_messages(rig)) == told + 1
    rig.apply_appset(SELECTED)
    wait_released(rig, RIG_CLUSTERS)
    assert _uids(rig) == before and deletions.since(0) == []


def test_a_min_version_edit_is_held(rig: Rig, deletions: DeletionWatch, timings: dict[str, float]) -> None:
    before = _uids(rig)
    message = _edit(
        rig, {**SELECTED, "minVersion": "1.35"}, timings, "min_version_edit_to_held_s"
    )  # the fleet runs 1.34
    assert f"would drop {RIG_CLUSTERS} of the {RIG_CLUSTERS}" in message
    rig.apply_appset(SELECTED)
    wait_released(rig, RIG_CLUSTERS)
    assert _uids(rig) == before and deletions.since(0) == []


def test_a_held_answer_survives_leader_failover_and_restarts(
    rig: Rig, deletions: DeletionWatch, timings: dict[str, float]
) -> None:
    """The old memory was per process: the other replica or a restarted one answered a new input at once."""
    before = _uids(rig)
    nothing = {"names": ["no-such-cluster"]}
    _edit(rig, nothing, timings, "names_edit_to_held_s")
    leader = rig.leader()
    index = next(i for i, r in enumerate(rig.replicas) if r.identity == leader)
    started = time.monotonic()
    rig.stop_replica(index, kill=True)  # no Lease given up: the other replica waits for it to expire
    wait_until(lambda: rig.leader() not in ("", leader), timeout=60, what="the other replica to take the Lease")
    record(timings, "leader_kill_to_takeover_s", time.monotonic() - started)
    _held_by_both_replicas(rig, nothing)
    for i in range(len(rig.replicas)):  # restart both: each comes back answering 503, never fewer clusters
        rig.stop_replica(i)
        rig.start_replica(i)
        _first_answers_never_lose_clusters(rig, i, nothing)
    refresh(rig)
    time.sleep(5)
    assert HELD in appset_error(rig)
    rig.apply_appset(SELECTED)
    wait_released(rig, RIG_CLUSTERS)
    assert _uids(rig) == before and deletions.since(0) == []


def _first_answers_never_lose_clusters(rig: Rig, replica: int, parameters: dict[str, object]) -> None:
    """From the first request a (restarted) replica serves: 503 (not listed yet, settling) until the hold."""
    deadline = time.monotonic() + 30
    while True:
        answer = ask(rig, replica, parameters)
        assert answer.status_code == 503, f"replica {replica} answered {answer.status_code}: {answer.text[:300]}"
        if HELD in answer.json()["message"]:
            return
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.1)


def test_a_mass_secret_deletion_is_held_and_restoring_the_secrets_keeps_every_application(
    rig: Rig, deletions: DeletionWatch, timings: dict[str, float]
) -> None:
    before, told = _uids(rig), len(held_messages(rig))
    doomed = [cluster_name(i) for i in range(RIG_CLUSTERS // 2 + 1)]  # more than half, no decommission first
    started = time.monotonic()
    rig.delete_secrets(doomed)
    message = wait_held(rig)
    record(timings, "secret_deletion_to_held_s", time.monotonic() - started)
    assert f"would drop {len(doomed)} of the {RIG_CLUSTERS} clusters" in message
    wait_until(lambda: len(held_messages(rig)) == told + 1, timeout=60, what="the held message")
    for name in doomed:  # the way out: the Secrets come back (Pending, then through the readiness gate)
        rig.register(name)
    wait_released(rig, RIG_CLUSTERS)
    wait_until(lambda: set(rig.phases().values()) == {"Ready"}, timeout=60, what="every cluster Ready again")
    assert _uids(rig) == before and deletions.since(0) == []
    assert len(held_messages(rig)) == told + 1


def test_decommission_then_delete_removes_the_application_and_keeps_its_objects(
    rig: Rig, deletions: DeletionWatch, timings: dict[str, float]
) -> None:
    name = cluster_name(RIG_CLUSTERS - 1)
    rig.annotate(name, PREFIX + "decommission", "true")
    wait_until(lambda: rig.phases().get(name) == "Decommissioning", timeout=60, what="phase Decommissioning")
    wait_until(
        lambda: (rig.applications()[name]["metadata"].get("annotations") or {}).get(PREFIX + "cluster-phase")
        == "Decommissioning",
        timeout=60, what="the Application to carry Decommissioning",
    )  # fmt: skip
    assert rig.applications()[name]["spec"]["syncPolicy"]["automated"]["enabled"] is False
    started = time.monotonic()
    rig.delete_secrets([name])
    wait_until(lambda: name not in rig.applications(), timeout=120, what=f"the Application of {name} to go")
    record(timings, "decommissioned_secret_delete_to_app_gone_s", time.monotonic() - started)
    assert [d.app for d in deletions.since(0)] == [f"soak-{name}"]
    assert not appset_error(rig)
    assert rig.platform.down.get("v1", "ConfigMap", "soak", name) is not None  # its objects stay
    rig.register(name)  # back for the next scenario
    wait_released(rig, RIG_CLUSTERS)
