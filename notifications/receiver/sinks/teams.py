"""Microsoft Teams through a Workflows (Power Automate) webhook: an Adaptive Card attachment.

Sender-controlled text goes only into ``TextRun``s of ``RichTextBlock``s, which Adaptive Cards never
read as markdown (a ``TextBlock`` and a ``FactSet``'s facts would: links, lists, emphasis), so a sender's
``[x](y)`` or ``![](y)`` is shown as written. The one link is the "Open" action, whose URL the
receiver built (``links.py``).
"""

from __future__ import annotations

from typing import Any

import httpx

from argocd_lifecycle.notifications.receiver import text
from argocd_lifecycle.notifications.receiver.config import SinkSpec
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.sinks.base import IDEMPOTENCY_HEADER, post

_COLOR = {"critical": "Attention", "warning": "Warning", "info": "Accent", "resolved": "Good"}


def _run(value: str, **style: str) -> dict[str, Any]:
    return {"type": "TextRun", "text": value, **style}


def _block(*runs: dict[str, Any]) -> dict[str, Any]:
    return {"type": "RichTextBlock", "inlines": list(runs)}


def card(note: Notification) -> dict[str, Any]:
    color = _COLOR.get(note.severity, "Default")
    body: list[dict[str, Any]] = [
        _block(_run(text.one_line(note.title), weight="Bolder", size="Medium", color=color)),
        _block(_run(note.text)),
    ]
    body += [_block(_run(f"{k}: ", weight="Bolder"), _run(text.one_line(v))) for k, v in note.fields]
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
