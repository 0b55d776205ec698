"""Attack, from the Application to the chat message: Argo CD's own notification engine renders the
catalog for an Application whose cluster-phase annotation says Unreachable (anyone who may edit the
Application can write it) and whose destination name carries markdown; the receiver takes that
webhook body as the notifications controller would send it. Before, the receiver opened a storm and
delivered "Cluster prod-eu-1 is Unreachable"; now only the signed lifecycle source can."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from argocd_lifecycle.notifications.receiver import events
from argocd_lifecycle.notifications.receiver.config import load as load_config
from argocd_lifecycle.notifications.receiver.links import Links
from argocd_lifecycle.notifications.receiver.metrics import Metrics
from argocd_lifecycle.notifications.receiver.notification import Notification
from argocd_lifecycle.notifications.receiver.pipeline import Outcome, Pipeline
from argocd_lifecycle.notifications.receiver.sinks import dingtalk
from argocd_lifecycle.notifications.receiver.sqlite_state import SqliteState
from argocd_lifecycle.notifications.receiver.state import PENDING
from tests.integration.notifications.catalog.engine import Evaluator, cases
from tests.unit.notifications.receiver.conftest import BASIC, write_config

pytestmark = [pytest.mark.upstream, pytest.mark.anyio]
LINK = "[acknowledge](https://evil.example/ack)"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _spoofed(now: dt.datetime) -> dict:
    case = next(c for c in cases() if c.rel == "on-cluster-unreachable/fires-unreachable.json")
    app = case.app(now)
    app["spec"]["destination"]["name"] = f"prod-eu-1 {LINK}"  # Argo CD takes any destination text here
    return app


async def test_an_annotated_application_opens_no_storm_and_its_markdown_stays_text(
    engine: Evaluator, now: dt.datetime, tmp_path: Path
) -> None:
    result = engine.run(_spoofed(now), "on-cluster-unreachable")
    assert result.errors == [], result.stderr
    (notification,) = result.entry("on-cluster-unreachable")["rendered"].values()
    body = json.loads(notification["webhook"]["argocd-lifecycle"]["body"])
    assert body["clusterPhase"] == "Unreachable" and "argocdUrl" not in body

    config = load_config(write_config(tmp_path, BASIC))
    store = SqliteState.open(str(tmp_path / "state.db"))
    pipeline = Pipeline(config, store, Metrics())
    links = Links(config.argocd_url)
    first = await pipeline.ingest(events.from_argocd(body, now.timestamp(), links))
    other = {**body, "app": "shop", "revision": "r2"}
    second = await pipeline.ingest(events.from_argocd(other, now.timestamp(), links))
    assert (first.outcome, second.outcome) == (Outcome.QUEUED, Outcome.QUEUED)  # told, never collapsed

    items = await store.outbox(PENDING, 100)
    notes = [Notification.from_json(i.payload) for i in items if i.receiver == "ops-dingtalk"]
    assert [n.kind for n in notes] == ["alert", "alert"]
    assert not any(n.title.startswith("[critical] Cluster ") for n in notes)
    assert dict(notes[0].fields)["Phase reported by Argo CD"] == "Unreachable"
    assert notes[0].url == "https://argocd.example/applications/argocd/guestbook-prod-eu-1"
    html = MarkdownIt("commonmark", {"html": True}).render(dingtalk.markdown(notes[0])["markdown"]["text"])
    assert "evil.example" in html and 'href="https://evil.example' not in html
    assert html.count("<a ") == 1  # the receiver's own Open link
