"""Both state stores keep the same contract: the same steps run against SQLite and a real redis-server."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from argocd_lifecycle.notifications.receiver import silences
from argocd_lifecycle.notifications.receiver.redis_state import PREFIX
from argocd_lifecycle.notifications.receiver.state import (
    DEAD,
    DELIVERED,
    PENDING,
    GroupUpdate,
    Ingest,
    NewItem,
    StateError,
    StateStore,
)
from argocd_lifecycle.notifications.receiver.stores import open_state

pytestmark = pytest.mark.anyio
NOW = 1_760_000_000.0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StateStore]:
    if request.param == "sqlite":
        opened = await open_state(f"sqlite:///{tmp_path}/state.db")
    else:
        opened = await open_state(request.getfixturevalue("redis_url"))
        await opened.r.flushdb()  # type: ignore[attr-defined]
    yield opened
    await opened.close()


def item(receiver: str = "slack", title: str = "t", not_before: float = NOW) -> NewItem:
    return NewItem(uuid.uuid4().hex, receiver, {"title": title, "kind": "alert"}, not_before)


async def test_record_marks_once_per_window(store: StateStore) -> None:
    assert await store.record(Ingest("fp", 60, [item()]), NOW)
    assert await store.seen("fp", NOW + 59)
    assert not await store.record(Ingest("fp", 60, [item()]), NOW + 1)
    assert not await store.seen("fp", NOW + 61)
    assert (await store.outbox_counts())[PENDING] == 1


async def test_claim_keeps_order_and_a_failing_head_blocks(store: StateStore) -> None:
    await store.record(Ingest("a", 60, [item(title="first"), item("dingtalk", "other")]), NOW)
    await store.record(Ingest("b", 60, [item(title="second")]), NOW)
    head = await store.claim("slack", NOW, 30)
    assert head is not None and head.payload["title"] == "first"
    assert await store.claim("slack", NOW, 30) is None  # leased: not handed out twice
    await store.retry(head.id, 1, NOW + 10, "503")
    assert await store.claim("slack", NOW + 5, 30) is None  # the head waits; so does "second"
    other = await store.claim("dingtalk", NOW + 5, 30)
    assert other is not None and other.payload["title"] == "other"  # other destinations go on
    again = await store.claim("slack", NOW + 10, 30)
    assert again is not None and again.id == head.id and again.attempts == 1
    await store.delivered(again.id, NOW + 10)
    nxt = await store.claim("slack", NOW + 10, 30)
    assert nxt is not None and nxt.payload["title"] == "second"
    await store.dead(nxt.id, 3, "gone", NOW + 11)
    [dead] = await store.outbox(DEAD, 10)
    assert (dead.id, dead.last_error, dead.attempts) == (nxt.id, "gone", 3)
    assert await store.outbox_counts() == {PENDING: 1, DELIVERED: 1, DEAD: 1}


async def test_an_expired_lease_is_handed_out_again(store: StateStore) -> None:
    await store.record(Ingest("a", 60, [item()]), NOW)
    first = await store.claim("slack", NOW, 30)
    assert first is not None
    again = await store.claim("slack", NOW + 31, 30)
    assert again is not None and again.id == first.id


async def test_group_is_updated_in_place_then_spaced_by_the_interval(store: StateStore) -> None:
    def update(count: int) -> GroupUpdate:
        return GroupUpdate("slack", "storm:x", {"title": f"{count} alerts"}, uuid.uuid4().hex, 10, 300)

    await store.record(Ingest("a", 60, groups=[update(1)]), NOW)
    await store.record(Ingest("b", 60, groups=[update(2)]), NOW + 1)
    assert await store.claim("slack", NOW + 5, 30) is None  # still gathering
    first = await store.claim("slack", NOW + 10, 30)
    assert first is not None and first.payload["title"] == "2 alerts"
    await store.delivered(first.id, NOW + 10)
    await store.record(Ingest("c", 60, groups=[update(3)]), NOW + 20)
    [later] = await store.outbox(PENDING, 10)
    assert later.payload["title"] == "3 alerts" and later.not_before == pytest.approx(NOW + 300)


async def test_replay_storm_flap_and_phase(store: StateStore) -> None:
    assert not await store.replayed("sig", NOW, 600)
    assert await store.replayed("sig", NOW + 1, 600)
    assert await store.storm_add("edge", "a", NOW) == (NOW, 1, ["a"], True)
    assert await store.storm_add("edge", "a", NOW + 1) == (NOW, 2, ["a"], False)
    assert await store.storm_add("edge", "b", NOW + 2) == (NOW, 3, ["a", "b"], True)
    await store.storm_clear("edge")
    assert await store.storm_add("edge", "c", NOW + 3) == (NOW + 3, 1, ["c"], True)
    for n in range(3):
        await store.record(Ingest(f"f{n}", 60, flap_identity="id"), NOW + n)
    assert await store.flap_count("id", NOW + 3, 600) == 3
    assert await store.flap_count("id", NOW + 603, 600) == 0
    assert await store.flap_begin("id", NOW, NOW + 600)
    assert not await store.flap_begin("id", NOW + 1, NOW + 601)
    await store.set_cluster_phase("edge", "Unreachable", NOW)
    assert await store.cluster_phase("edge") == "Unreachable"
    assert await store.cluster_phase("other") == ""


async def test_a_dead_letter_is_replayed_once_and_delivered_in_turn(store: StateStore) -> None:
    dead, other = item(title="dead"), item(title="other")
    await store.record(Ingest("a", 60, [dead, other]), NOW)
    assert (await store.claim("slack", NOW, 30)).id == dead.id  # type: ignore[union-attr]
    await store.dead(dead.id, 12, "HTTP 410", NOW + 1)
    assert not await store.replay(other.id, NOW + 2)  # pending, not dead: nothing to replay
    assert not await store.replay("no-such-item", NOW + 2)
    assert await store.replay(dead.id, NOW + 2)
    assert not await store.replay(dead.id, NOW + 3)
    assert await store.outbox(DEAD, 10) == []
    (again,) = [i for i in await store.outbox(PENDING, 10) if i.id == dead.id]
    assert (again.state, again.attempts, again.last_error, again.finished_at) == (PENDING, 0, "", None)
    assert (await store.outbox_counts())[PENDING] == 2
    # it is due now, behind the item that was due before it
    assert (await store.claim("slack", NOW + 3, 30)).id == other.id  # type: ignore[union-attr]
    await store.delivered(other.id, NOW + 3)
    assert (await store.claim("slack", NOW + 4, 30)).id == dead.id  # type: ignore[union-attr]


async def test_silences_persist_and_expire(store: StateStore) -> None:
    silence = silences.from_request({"matchers": {"app": ["shop"]}, "duration": "1h"}, NOW)
    await store.add_silence(silence)
    assert [s.id for s in await store.silences(NOW + 10)] == [silence.id]
    assert await store.silences(NOW + 3601) == []
    assert await store.delete_silence(silence.id)
    assert not await store.delete_silence(silence.id)


async def test_housekeeping_drops_expired_silences(store: StateStore) -> None:
    short = silences.from_request({"matchers": {"app": ["a"]}, "duration": "1m"}, NOW)
    long = silences.from_request({"matchers": {"app": ["b"]}, "duration": "1h"}, NOW)
    await store.add_silence(short)
    await store.add_silence(long)
    await store.housekeeping(NOW + 120, retention=86400, flap_window=600)
    assert not await store.delete_silence(short.id)  # already gone
    assert [s.id for s in await store.silences(NOW + 120)] == [long.id]


async def test_housekeeping_drops_old_deliveries_only(store: StateStore) -> None:
    await store.record(Ingest("a", 60, [item(), item(title="stays")]), NOW)
    done = await store.claim("slack", NOW, 30)
    assert done is not None
    await store.delivered(done.id, NOW)
    await store.housekeeping(NOW + 100, retention=50, flap_window=600)
    assert await store.outbox_counts() == {PENDING: 1, DELIVERED: 0, DEAD: 0}


async def test_unreachable_redis_is_a_state_error() -> None:
    from tests.integration.notifications.receiver.conftest import free_port

    with pytest.raises(StateError, match="cannot reach redis state"):
        await open_state(f"redis://127.0.0.1:{free_port()}/0")


def test_prefix_is_namespaced() -> None:
    assert PREFIX.startswith("argocd-lifecycle:")
