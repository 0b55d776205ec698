"""Destinations: each sink turns a Notification into its service's request and sends it once
(``base.py``: the protocol and the error every sink raises); ``build`` makes the one a receiver names."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from argocd_lifecycle.notifications.receiver.config import SinkSpec
from argocd_lifecycle.notifications.receiver.sinks import dingtalk, email, slack, teams, webhook
from argocd_lifecycle.notifications.receiver.sinks.base import Sink


def build(spec: SinkSpec, client: httpx.AsyncClient, clock: Callable[[], float]) -> Sink:
    """The sink for one configured receiver."""
    if spec.type == "slack":
        return slack.SlackSink(spec, client)
    if spec.type == "dingtalk":
        return dingtalk.DingTalkSink(spec, client, clock)
    if spec.type == "teams":
        return teams.TeamsSink(spec, client)
    if spec.type == "webhook":
        return webhook.WebhookSink(spec, client, clock)
    return email.EmailSink(spec)
