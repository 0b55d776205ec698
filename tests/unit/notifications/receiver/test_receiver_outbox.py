"""Delivery from the outbox with httpx's MockTransport standing in for the network."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest

from argocd_lifecycle.notifications.receiver import events
from argocd_lifecycle.notifications.receiver.config import Delivery, RateLimit, ReceiverConfig
from argocd_lifecycle.notifications.receiver.metrics import Metrics
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.outbox import Deliverer, RateLimiter, backoff
from argocd_lifecycle.notifications.receiver.pipeline import Pipeline
from argocd_lifecycle.notifications.receiver.sinks import build
from argocd_lifecycle.notifications.receiver.sqlite_state import SqliteState
from argocd_lifecycle.notifications.receiver.state import DEAD, DELIVERED, PENDING
from argocd_lifecycle.signing import verify
from tests.unit.notifications.receiver.conftest import Clock

pytestmark = pytest.mark.anyio


class Service:
    """Answers like the destination would; ``status`` may be changed between calls."""

    def __init__(self) -> None:
        self.status = 200
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if "robot/send" in str(request.url) and self.status == 200:
            return httpx.Response(200, json={"errcode": 0, "errmsg": "ok"})
        return httpx.Response(self.status, text="ok" if self.status == 200 else "nope")


@pytest.fixture
def service() -> Service:
    return Service()


@pytest.fixture
def parts(basic_config: ReceiverConfig, tmp_path: Path, clock: Clock, service: Service):
    store = SqliteState.open(str(tmp_path / "state.db"))
    client = httpx.AsyncClient(transport=httpx.MockTransport(service))
    sinks = {s.name: build(s, client, clock) for s in basic_config.sinks}
    metrics = Metrics()
    settings = Delivery(max_attempts=3, initial_backoff=1.0, max_backoff=10.0)
    deliverer = Deliverer(settings, store, sinks, {}, metrics, clock=clock, rng=lambda: 1.0)
    pipeline = Pipeline(basic_config, store, metrics)
    return store, deliverer, pipeline


def alert(app: str, revision: str = "r1") -> dict:
    return {"trigger": "on-sync-failed", "app": app, "cluster": "edge-7", "revision": revision}


async def drain(store, deliverer: Deliverer, clock: Clock, receiver: str = "ops-slack") -> int:
    """Deliver every due item of ``receiver``; returns how many attempts were made."""
    attempts = 0
    while (item := await store.claim(receiver, clock(), 60)) is not None:
        await deliverer.deliver(item)
        attempts += 1
    return attempts


async def test_sink_down_then_up_delivers_in_order(parts, service: Service, clock: Clock) -> None:
    store, deliverer, pipeline = parts
    for app in ("a", "b", "c"):
        await pipeline.ingest(events.from_argocd(alert(app), clock()))
    service.status = 503
    assert await drain(store, deliverer, clock) == 1  # the head failed; b and c wait behind it
    clock.advance(0.5)
    assert await store.claim("ops-slack", clock(), 60) is None  # still backing off
    clock.advance(1)
    assert await drain(store, deliverer, clock) == 1  # second failure, backoff doubles
    service.status = 200
    clock.advance(2.1)
    assert await drain(store, deliverer, clock) == 3
    delivered = [json.loads(r.content)["text"] for r in service.seen]
    assert [t.split(" ")[1] for t in delivered] == ["a", "a", "a", "b", "c"]
    keys = [r.headers["Idempotency-Key"] for r in service.seen]
    assert keys[0] == keys[1] == keys[2]  # the same key on every retry of one item
    assert (await store.outbox_counts())[DELIVERED] == 3


async def test_permanent_failure_goes_to_dead_letter_at_once(parts, service: Service, clock: Clock) -> None:
    store, deliverer, pipeline = parts
    await pipeline.ingest(events.from_argocd(alert("a"), clock()))
    await pipeline.ingest(events.from_argocd(alert("b"), clock()))
    service.status = 404
    assert await drain(store, deliverer, clock) == 2  # the dead head does not block the next
    dead = await store.outbox(DEAD, 10)
    assert {d.last_error for d in dead} == {"slack answered 404: nope"}
    assert deliverer.metrics.dead_lettered.labels("ops-slack")._value.get() == 2


async def test_retries_stop_after_max_attempts(parts, service: Service, clock: Clock) -> None:
    store, deliverer, pipeline = parts
    await pipeline.ingest(events.from_argocd(alert("a"), clock()))
    service.status = 500
    for _ in range(3):
        await drain(store, deliverer, clock)
        clock.advance(60)
    assert await store.outbox(PENDING, 10) == []
    [dead] = await store.outbox(DEAD, 10)
    assert dead.attempts == 3


async def test_dingtalk_errcode_is_a_failure(parts, clock: Clock) -> None:
    store, deliverer, pipeline = parts
    deliverer.sinks["ops-dingtalk"]._client = httpx.AsyncClient(
        transport=httpx.MockTransport(
            lambda r: httpx.Response(200, json={"errcode": 310000, "errmsg": "sign not match"})
        )
    )
    await pipeline.ingest(events.from_argocd({**alert("a"), "severity": "critical"}, clock()))
    await drain(store, deliverer, clock, "ops-dingtalk")
    [dead] = await store.outbox(DEAD, 10)
    assert dead.last_error == "dingtalk errcode 310000: sign not match"


async def test_webhook_sink_signs_like_the_inbound_side(parts, service: Service, clock: Clock) -> None:
    store, deliverer, pipeline = parts
    await pipeline.ingest(events.from_argocd(alert("a"), clock()))
    item = await store.claim("ops-slack", clock(), 60)
    assert item is not None
    await deliverer.sinks["audit"].send(Notification.from_json(item.payload), "key-1")
    request = service.seen[-1]
    verify(b"hook-secret", request.content, request.headers, clock())
    assert request.headers["Idempotency-Key"] == "key-1"
    assert json.loads(request.content)["idempotencyKey"] == "key-1"


def test_backoff_grows_is_capped_and_jittered() -> None:
    settings = Delivery(initial_backoff=1.0, max_backoff=10.0)
    assert [backoff(n, settings, lambda: 1.0) for n in (1, 2, 3, 4, 5)] == [1, 2, 4, 8, 10]
    assert [backoff(n, settings, lambda: 0.0) for n in (1, 2, 5)] == [0.5, 1, 5]


def test_rate_limiter_allows_a_burst_then_spaces_messages() -> None:
    limiter = RateLimiter(RateLimit(messages=20, per=60.0))
    now = 1000.0
    assert [limiter.reserve(now) for _ in range(20)] == [0.0] * 20
    assert limiter.reserve(now) == pytest.approx(3.0)  # one every 3 s after the burst
    assert limiter.reserve(now + 3.0) == 0.0
    assert RateLimiter(None).reserve(now) == 0.0


async def test_a_delivery_loop_ends_when_cancelled_as_it_is_woken(parts) -> None:
    # on 3.11, asyncio.wait_for drops a cancel that lands as the event it waits on is set: the loop
    # went on polling and the receiver's shutdown waited for it for ever
    _, deliverer, _ = parts
    task = asyncio.create_task(deliverer.run())
    for _ in range(20):  # let every sink's loop find the outbox empty and wait to be woken
        await asyncio.sleep(0)
    deliverer.wake()
    task.cancel()
    await asyncio.wait({task}, timeout=10)
    assert task.cancelled(), "the delivery loop still runs after the cancel"
