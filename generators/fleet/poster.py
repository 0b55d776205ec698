"""Posting lifecycle events to the notifications receiver.

Each event becomes the lifecycle event JSON (``LifecycleEventBody``, declared once in core and checked
by the receiver), signed with the shared HMAC scheme, and waits in a bounded queue so a probe never
waits on the receiver. A refusal (4xx other than 429) is not retried; everything else is, with backoff.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time

import httpx

from argocd_lifecycle.backoff import Backoff
from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.generators.fleet.lifecycle import LifecycleEvent, Tracked
from argocd_lifecycle.lifecycle_event import LifecycleEventBody
from argocd_lifecycle.signing import sign
from argocd_lifecycle.times import format_rfc3339

log = logging.getLogger(__name__)


def lifecycle_event(secret: ClusterSecret, state: Tracked, event: LifecycleEvent) -> LifecycleEventBody:
    return {
        "reason": event.reason.value,
        "cluster": secret.name,
        "server": secret.server,
        "phase": event.phase.value,
        "previousPhase": event.previous_phase.value,
        "since": format_rfc3339(state.since),
        "message": event.message,
        "kubernetesVersion": state.git_version.removeprefix("v"),
    }


class Notifier:
    def __init__(self, url: str, secret: bytes, *, attempts: int = 4, timeout: float = 5.0) -> None:
        self.url, self._secret, self.attempts = url, secret, attempts
        self._queue: asyncio.Queue[LifecycleEventBody] = asyncio.Queue(maxsize=10_000)
        self._client = httpx.AsyncClient(timeout=timeout, trust_env=False)
        self.delivered = 0
        self.failed = 0

    def post(self, payload: LifecycleEventBody) -> None:
        try:
            self._queue.put_nowait(payload)
        except asyncio.QueueFull:
            self.failed += 1
            log.warning("lifecycle event queue full: dropping %s for %s", payload["reason"], payload["cluster"])

    async def _send(self, payload: LifecycleEventBody) -> None:
        body = json.dumps(payload, separators=(",", ":")).encode()
        backoff = Backoff(base=0.5, cap=10.0)
        for _ in range(self.attempts):
            headers = {"Content-Type": "application/json", **sign(self._secret, body, time.time())}
            try:
                resp = await self._client.post(self.url, content=body, headers=headers)
                if resp.status_code < 300:
                    self.delivered += 1
                    return
                problem = f"HTTP {resp.status_code}"
                if 400 <= resp.status_code < 500 and resp.status_code != 429:
                    break  # the receiver refused it: retrying will not help
            except httpx.HTTPError as exc:
                problem = f"{type(exc).__name__}: {exc}"
            await asyncio.sleep(backoff.next())
        self.failed += 1
        log.warning("posting %s for %s to the receiver failed: %s", payload["reason"], payload["cluster"], problem)

    async def run(self) -> None:
        while True:
            await self._send(await self._queue.get())

    async def aclose(self) -> None:
        await self._client.aclose()
