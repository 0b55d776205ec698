"""Generic webhook: the notification as JSON, signed with the same scheme as the inbound side."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx

from argocd_lifecycle.notifications.receiver.config import SinkSpec
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.sinks.base import IDEMPOTENCY_HEADER, post
from argocd_lifecycle.signing import sign


class WebhookSink:
    def __init__(self, spec: SinkSpec, client: httpx.AsyncClient, clock: Callable[[], float]) -> None:
        assert spec.secret is not None  # config requires it for webhooks
        self.name, self._url, self._secret = spec.name, spec.url, spec.secret
        self._client, self._clock = client, clock

    async def send(self, note: Notification, key: str) -> None:
        body = json.dumps({"idempotencyKey": key, **note.to_json()}, separators=(",", ":")).encode()
        headers = {
            "Content-Type": "application/json",
            IDEMPOTENCY_HEADER: key,
            **sign(self._secret, body, self._clock()),
        }
        await post(self._client, "webhook", self._url, content=body, headers=headers)
