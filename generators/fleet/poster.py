"""Posting to the notifications receiver: lifecycle events, and the mass-drop guard's held answers.

Each lifecycle event becomes the lifecycle event JSON (``LifecycleEventBody``, declared once in core
and checked by the receiver) for ``/v1/events/lifecycle``, signed with the receiver's lifecycle secret;
a held answer is an external event for ``/v1/events/external`` beside it (held.py), signed with the
external secret, which the receiver accepts on that route only (without it held answers are not
posted). Both wait in a bounded queue, so neither a probe nor a request waits on the receiver. A
refusal (4xx other than 429) is not retried; everything else is, with backoff.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Mapping
from typing import Any

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
    def __init__(
        self, url: str, secret: bytes, *, external_secret: bytes = b"", attempts: int = 4, timeout: float = 5.0
    ) -> None:
        self.url, self._secret, self._external_secret, self.attempts = url, secret, external_secret, attempts
        self._queue: asyncio.Queue[tuple[str, Mapping[str, Any], str]] = asyncio.Queue(maxsize=10_000)
        self._client = httpx.AsyncClient(timeout=timeout, trust_env=False)
        if not external_secret:
            log.info("held answers are not posted to the receiver: no --receiver-external-secret-file")
        self.delivered = 0
        self.failed = 0

    @property
    def external_url(self) -> str:
        """The receiver's ``/v1/events/external``, beside the ``/v1/events/lifecycle`` it was given ("" when
        there is no external secret to sign for it)."""
        base, _, last = self.url.rstrip("/").rpartition("/")
        return f"{base}/external" if last == "lifecycle" and self._external_secret else ""

    def post(self, payload: LifecycleEventBody) -> None:
        self.post_to(self.url, payload, f"{payload['reason']} for {payload['cluster']}")

    def post_to(self, url: str, payload: Mapping[str, Any], what: str) -> None:
        try:
            self._queue.put_nowait((url, payload, what))
        except asyncio.QueueFull:
            self.failed += 1
            log.warning("receiver queue full: dropping %s", what)

    async def _send(self, url: str, payload: Mapping[str, Any], what: str) -> None:
        body = json.dumps(payload, separators=(",", ":")).encode()
        secret = self._external_secret if url == self.external_url else self._secret
        backoff = Backoff(base=0.5, cap=10.0)
        for _ in range(self.attempts):
            headers = {"Content-Type": "application/json", **sign(secret, body, time.time())}
            try:
                resp = await self._client.post(url, content=body, headers=headers)
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
        log.warning("posting %s to the receiver failed: %s", what, problem)

    async def run(self) -> None:
        while True:
            await self._send(*await self._queue.get())

    async def aclose(self) -> None:
        await self._client.aclose()
