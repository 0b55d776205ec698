"""Telling a held answer without Kubernetes: once per episode, each refusal a look at most every few seconds."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from argocd_lifecycle.generators.fleet import held
from argocd_lifecycle.generators.fleet.held import HeldReporter, external_event
from argocd_lifecycle.generators.fleet.view import Hold, Target

HOLD = Hold("guestbook", (Target("https://a", "a"),), 2, "mass-drop guard: holding ApplicationSet 'guestbook': ...")


class Posted:
    external_url = "http://receiver.test/v1/events/external"

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def post_to(self, url: str, payload: dict[str, Any], what: str) -> None:
        self.sent.append((url, payload))


def test_the_external_event_names_the_appset_and_is_the_same_for_the_same_episode() -> None:
    body = external_event(HOLD, "argocd", "2026-01-01T00:00:00Z")
    assert body["trigger"] == "MassDropHeld" and body["severity"] == "critical"
    assert body["labels"] == {"applicationSet": "guestbook", "clusters": "1"} and body["message"] == HOLD.message
    assert body["revision"] == external_event(HOLD, "argocd", "2026-01-01T00:00:00Z")["revision"]
    assert body["revision"] != external_event(HOLD, "argocd", "2026-01-01T00:00:01Z")["revision"]


def test_one_message_per_episode_and_a_burst_of_refusals_is_one_look(monkeypatch: pytest.MonkeyPatch) -> None:
    async def story() -> list[tuple[str, dict[str, Any]]]:
        posted = Posted()
        reporter = HeldReporter(asyncio.get_running_loop(), "argocd", notifier=posted)  # type: ignore[arg-type]

        async def settle() -> None:
            for _ in range(5):
                await asyncio.sleep(0.01)

        monkeypatch.setattr(held, "RECHECK_SECONDS", 0.1)
        reporter.held(HOLD)
        reporter.held(HOLD)  # within RECHECK_SECONDS: looked at once, at the end of the window
        reporter.held(HOLD)
        await asyncio.sleep(0.2)
        assert reporter.claimed == 1
        reporter.released("guestbook")
        await settle()
        reporter.held(HOLD)  # a new episode: looked at at once
        await settle()
        assert reporter.claimed == 2
        return posted.sent

    sent = asyncio.run(story())
    assert [url for url, _ in sent] == [Posted.external_url] * 2
    assert sent[0][1]["revision"] != sent[1][1]["revision"]
