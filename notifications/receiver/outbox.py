"""Delivery from the durable outbox: at-least-once, in order per destination, with backoff and limits.

Each destination has one loop that leases its first due item, waits for the rate limit, sends it
and marks it delivered. A failure puts the same item back with an exponential backoff and jitter;
later items of that destination wait behind it, so order is kept. Past ``maxAttempts`` (or on an
answer that can never succeed, such as a revoked webhook) the item moves to the dead-letter list.
A crash between sending and marking re-sends after restart with the same idempotency key.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable

from argocd_lifecycle.backoff import exponential_delay
from argocd_lifecycle.notifications.receiver.config import Delivery, RateLimit
from argocd_lifecycle.notifications.receiver.metrics import Metrics
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.sinks.base import DeliveryError, Sink
from argocd_lifecycle.notifications.receiver.state import OutboxItem, StateStore

log = logging.getLogger(__name__)
POLL_SECONDS = 0.5


class RateLimiter:
    """GCRA: ``messages`` per ``per`` seconds, allowing a burst of ``messages`` after a quiet spell.
    Kept per process: with several replicas each one applies the limit to what it sends."""

    def __init__(self, rate: RateLimit | None) -> None:
        self.interval = rate.per / rate.messages if rate else 0.0
        self.tolerance = rate.per - self.interval if rate else 0.0
        self.tat = 0.0  # theoretical arrival time of the next message

    def reserve(self, now: float) -> float:
        """Seconds to wait before sending; 0 reserves a slot now."""
        if not self.interval:
            return 0.0
        tat = max(self.tat, now)
        wait = tat - self.tolerance - now
        if wait > 0:
            return wait
        self.tat = tat + self.interval
        return 0.0


def backoff(attempts: int, settings: Delivery, rng: Callable[[], float]) -> float:
    """Exponential in the attempt count, capped, with half of it randomised so retries spread out."""
    delay = exponential_delay(attempts - 1, settings.initial_backoff, settings.max_backoff)
    return delay / 2 + delay / 2 * rng()


class Deliverer:
    def __init__(
        self,
        settings: Delivery,
        store: StateStore,
        sinks: dict[str, Sink],
        rates: dict[str, RateLimit | None],
        metrics: Metrics,
        *,
        clock: Callable[[], float] = time.time,
        rng: Callable[[], float] = random.random,
    ) -> None:
        self.settings, self.store, self.sinks, self.metrics = settings, store, sinks, metrics
        self.clock, self.rng = clock, rng
        self.limiters = {name: RateLimiter(rates.get(name)) for name in sinks}
        self._wakeups = {name: asyncio.Event() for name in sinks}

    def wake(self) -> None:
        for event in self._wakeups.values():
            event.set()

    async def run(self) -> None:
        """Deliver until cancelled."""
        loops = [self._loop(name) for name in self.sinks]
        await asyncio.gather(*loops)

    async def _loop(self, name: str) -> None:
        wakeup = self._wakeups[name]
        while True:
            wakeup.clear()
            try:
                item = await self.store.claim(name, self.clock(), self.settings.lease)
            except Exception as exc:  # the store may be briefly unavailable (Redis restart)
                log.warning("outbox claim for %s failed: %s", name, exc)
                item = None
            if item is None:
                # asyncio.timeout, not wait_for: on 3.11 wait_for drops a cancel that lands as the event
                # is set, and the loop would outlive the receiver's shutdown
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(POLL_SECONDS):
                        await wakeup.wait()
                continue
            while (wait := self.limiters[name].reserve(self.clock())) > 0:
                await asyncio.sleep(wait)
            await self.deliver(item)

    async def deliver(self, item: OutboxItem) -> None:
        sink, attempts = self.sinks[item.receiver], item.attempts + 1
        try:
            await sink.send(Notification.from_json(item.payload), item.id)
        except DeliveryError as exc:
            await self._failed(item, attempts, exc)
            return
        except Exception as exc:  # a bug in rendering must not stop the loop; keep the item
            log.exception("delivery to %s raised", item.receiver)
            await self._failed(item, attempts, DeliveryError(f"internal: {type(exc).__name__}", retryable=True))
            return
        now = self.clock()
        await self.store.delivered(item.id, now)
        self.metrics.delivered.labels(item.receiver).inc()
        self.metrics.latency.labels(item.receiver).observe(max(0.0, now - item.created_at))
        log.info("delivered %s to %s (attempt %d)", item.id, item.receiver, attempts)

    async def _failed(self, item: OutboxItem, attempts: int, exc: DeliveryError) -> None:
        now, name = self.clock(), item.receiver
        self.metrics.failed.labels(name, str(exc.retryable).lower()).inc()
        if not exc.retryable or attempts >= self.settings.max_attempts:
            await self.store.dead(item.id, attempts, exc.message, now)
            self.metrics.dead_lettered.labels(name).inc()
            log.error("dead-lettered %s for %s after %d attempt(s): %s", item.id, name, attempts, exc.message)
            return
        delay = max(backoff(attempts, self.settings, self.rng), exc.retry_after or 0.0)
        await self.store.retry(item.id, attempts, now + delay, exc.message)
        log.warning(
            "delivery %s to %s failed (attempt %d), retry in %.1fs: %s", item.id, name, attempts, delay, exc.message
        )
