"""Telling a held answer: once per episode, each refusal a look at most every few seconds, nothing for a
hold that is over (a deferred look, a release while the mark is being set)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, ClassVar

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


def test_a_look_deferred_from_before_a_release_tells_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal inside the window defers its look; the guard answers again before the look: that hold is
    over, so the look neither tells it again nor leaves a mark that would silence the next episode."""

    async def story() -> tuple[int, int]:
        posted = Posted()
        reporter = HeldReporter(asyncio.get_running_loop(), "argocd", notifier=posted)  # type: ignore[arg-type]
        monkeypatch.setattr(held, "RECHECK_SECONDS", 0.1)
        reporter.held(HOLD)  # told
        reporter.held(HOLD)  # deferred to the end of the window
        await asyncio.sleep(0.02)
        reporter.released("guestbook")  # before the deferred look
        await asyncio.sleep(0.2)  # past the window: the deferred look has run
        told_once = reporter.claimed
        reporter.held(HOLD)  # a new episode is told
        await asyncio.sleep(0.05)
        return told_once, len(posted.sent)

    assert asyncio.run(story()) == (1, 2)


def test_a_release_while_the_mark_is_being_set_takes_the_mark_back() -> None:
    """With Kubernetes: the guard answers again while this replica is still setting held-since (a
    blocking call in a thread); the mark is removed again and the over hold is neither recorded nor told."""

    class Racing(HeldReporter):
        marks: ClassVar[list[str]] = []

        def _mark(self, appset: str, stamp: str) -> bool:
            self.loop.call_soon_threadsafe(self.released, appset)  # the release lands mid-claim
            time.sleep(0.05)
            self.marks.append("set")
            return True

        def _unmark(self, appset: str) -> bool:
            self.marks.append("removed")
            return True

        async def _event(self, appset: str, reason: str, message: str, kind: str, stamp: str) -> None:
            self.marks.append(reason)

    async def story() -> tuple[list[str], int]:
        posted = Posted()
        reporter = Racing(asyncio.get_running_loop(), "argocd", kube=object(), notifier=posted)  # type: ignore[arg-type]
        reporter.held(HOLD)
        await asyncio.sleep(0.3)
        return reporter.marks, len(posted.sent)

    marks, sent = asyncio.run(story())
    assert "MassDropHeld" not in marks and marks.count("removed") >= 1 and sent == 0


def test_a_tenants_hold_is_sent_with_its_own_namespace_for_routing() -> None:
    hold = Hold("team-a/web", HOLD.lost, 2, "mass-drop guard: holding ApplicationSet 'team-a/web': ...")
    body = external_event(hold, "argocd", "2026-01-01T00:00:00Z")
    assert body["namespace"] == "team-a" and body["labels"]["applicationSet"] == "web"
    other = external_event(Hold("team-b/web", HOLD.lost, 2, "..."), "argocd", "2026-01-01T00:00:00Z")
    assert other["namespace"] == "team-b" and other["revision"] != body["revision"]


def test_a_hold_is_sent_with_its_appsets_project_for_routes_and_silences() -> None:
    hold = Hold("team-a/web", HOLD.lost, 2, "mass-drop guard: holding ApplicationSet 'team-a/web': ...", "team-a")
    body = external_event(hold, "argocd", "2026-01-01T00:00:00Z")
    assert (body["namespace"], body["project"]) == ("team-a", "team-a")
    assert "project" not in external_event(HOLD, "argocd", "2026-01-01T00:00:00Z")  # unknown: not sent at all
