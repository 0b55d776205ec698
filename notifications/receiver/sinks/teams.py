"""Microsoft Teams through a Workflows (Power Automate) webhook: an Adaptive Card attachment."""

from __future__ import annotations

from typing import Any

import httpx

from argocd_lifecycle.notifications.receiver.config import SinkSpec
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.sinks import IDEMPOTENCY_HEADER, post

_COLOR = {"critical": "Attention", "warning": "Warning", "info": "Accent"}


def card(note: Notification) -> dict[str, Any]:
    body: list[dict[str, Any]] = [
        {
            "type": "TextBlock",
            "text": note.title,
            "weight": "Bolder",
            "size": "Medium",
            "wrap": True,
            "color": _COLOR.get(note.severity, "Default"),
        },
        {"type": "TextBlock", "text": note.text, "wrap": True},
    ]
    if note.fields:
        body.append({"type": "FactSet", "facts": [{"title": k, "value": v} for k, v in note.fields]})
    content: dict[str, Any] = {
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "type": "AdaptiveCard",
        "version": "1.4",
        "body": body,
    }
    if note.url.startswith(("http://", "https://")):
        content["actions"] = [{"type": "Action.OpenUrl", "title": "Open", "url": note.url}]
    attachment = {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": None, "content": content}
    return {"type": "message", "attachments": [attachment]}


class TeamsSink:
    def __init__(self, spec: SinkSpec, client: httpx.AsyncClient) -> None:
        self.name, self._url, self._client = spec.name, spec.url, client

    async def send(self, note: Notification, key: str) -> None:
        await post(self._client, "teams", self._url, json=card(note), headers={IDEMPOTENCY_HEADER: key})
