"""Slack incoming webhook with Block Kit blocks (header, text, fields, context, link button)."""

from __future__ import annotations

from typing import Any

import httpx

from argocd_lifecycle.notifications.receiver import text
from argocd_lifecycle.notifications.receiver.config import SinkSpec
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.sinks.base import IDEMPOTENCY_HEADER, post

# Block Kit limits: header text 150, section text 3000, 10 fields of 2000, 50 blocks.
_EMOJI = {"critical": ":rotating_light:", "warning": ":warning:", "info": ":information_source:"}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def blocks(note: Notification) -> dict[str, Any]:
    """The message body: ``text`` is the notification fallback, ``blocks`` what people see."""
    body: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": _cut(text.one_line(note.title), 150), "emoji": True}},
        {"type": "section", "text": {"type": "mrkdwn", "text": _cut(text.slack(note.text), 3000)}},
    ]
    if note.fields:
        fields = [
            {"type": "mrkdwn", "text": _cut(f"*{text.slack(k)}*\n{text.slack(v)}", 2000)} for k, v in note.fields[:10]
        ]
        body.append({"type": "section", "fields": fields})
    emoji = _EMOJI.get(note.severity, ":bell:")
    context = f"{emoji} {text.slack(note.severity)} · {note.kind}"
    body.append({"type": "context", "elements": [{"type": "mrkdwn", "text": context}]})
    if note.url.startswith(("http://", "https://")) and len(note.url) <= 3000:
        button = {"type": "button", "text": {"type": "plain_text", "text": "Open"}, "url": note.url}
        body.append({"type": "actions", "elements": [button]})
    return {"text": _cut(note.title, 3000), "blocks": body}


class SlackSink:
    def __init__(self, spec: SinkSpec, client: httpx.AsyncClient) -> None:
        self.name, self._url, self._client = spec.name, spec.url, client

    async def send(self, note: Notification, key: str) -> None:
        await post(self._client, "slack", self._url, json=blocks(note), headers={IDEMPOTENCY_HEADER: key})
