"""The pipeline against the real SQLite store: dedupe, silences, storm collapse, flap damping, routing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from argocd_lifecycle.notifications.receiver import config as receiver_config
from argocd_lifecycle.notifications.receiver import events, silences
from argocd_lifecycle.notifications.receiver.config import ReceiverConfig
from argocd_lifecycle.notifications.receiver.links import Links
from argocd_lifecycle.notifications.receiver.metrics import Metrics
from argocd_lifecycle.notifications.receiver.pipeline import Outcome, Pipeline
from argocd_lifecycle.notifications.receiver.sqlite_state import SqliteState
from argocd_lifecycle.notifications.receiver.state import PENDING
from tests.unit.notifications.receiver.conftest import BASIC, Clock, write_config

pytestmark = pytest.mark.anyio
FIXTURE = Path(__file__).parents[3] / "fixtures" / "notifications" / "webhook-body.json"


def app_alert(app: str = "shop", *, cluster: str = "edge-7", revision: str = "abc123", **extra: str) -> dict:
    body = {
        "trigger": "on-sync-failed",
        "severity": "warning",
        "app": app,
        "namespace": "argocd",
        "project": "default",
        "cluster": cluster,
        "clusterPhase": "Ready",
        "revision": revision,
        "message": f"sync of {app} failed",
        "argocdUrl": "https://argocd.example",
    }
    body.update(extra)
    return body


def lifecycle(phase: str, cluster: str = "edge-7", since: str = "2026-01-01T00:00:00Z") -> dict:
    reason = {"Unreachable": "ClusterUnreachable", "Ready": "ClusterRecovered", "Degraded": "ClusterDegraded"}[phase]
    return {"reason": reason, "cluster": cluster, "phase": phase, "previousPhase": "Ready", "since": since}


@pytest.fixture
def store(tmp_path: Path) -> SqliteState:
    return SqliteState.open(str(tmp_path / "state.db"))


@pytest.fixture
def pipeline(basic_config: ReceiverConfig, store: SqliteState) -> Pipeline:
    counter = iter(range(10_000))
    return Pipeline(basic_config, store, Metrics(), new_id=lambda: f"id{next(counter)}")


async def pending(store: SqliteState) -> list:
    return await store.outbox(PENDING, 1000)


async def test_duplicates_inside_the_window_queue_one_delivery(pipeline: Pipeline, store, clock: Clock) -> None:
    outcomes = []
    for _ in range(50):
        outcomes.append((await pipeline.ingest(events.from_argocd(app_alert(), clock()))).outcome)
        clock.advance(1)
    assert outcomes[0] == Outcome.QUEUED
    assert set(outcomes[1:]) == {Outcome.DUPLICATE}
    items = await pending(store)
    assert [i.receiver for i in items] == ["ops-slack"]
    assert pipeline.metrics.deduplicated._value.get() == 49


async def test_after_the_window_the_same_alert_is_told_again(pipeline: Pipeline, store, clock: Clock) -> None:
    await pipeline.ingest(events.from_argocd(app_alert(), clock()))
    clock.advance(31 * 60)
    result = await pipeline.ingest(events.from_argocd(app_alert(), clock()))
    assert result.outcome == Outcome.QUEUED
    assert len(await pending(store)) == 2


async def test_critical_goes_to_dingtalk_and_continues_to_slack(
    pipeline: Pipeline, store, clock: Clock, basic_config: ReceiverConfig
) -> None:
    links = Links(basic_config.argocd_url)
    result = await pipeline.ingest(events.from_argocd(app_alert(severity="critical"), clock(), links))
    assert result.receivers == ("ops-dingtalk", "ops-slack")
    payload = (await pending(store))[0].payload
    assert payload["title"] == "[critical] shop on edge-7: on-sync-failed"
    assert payload["url"] == "https://argocd.example/applications/argocd/shop"
    assert payload["event"]["message"] == "sync of shop failed"


async def test_the_open_link_comes_from_the_receivers_config_never_the_body(
    pipeline: Pipeline, store, clock: Clock, basic_config: ReceiverConfig
) -> None:
    links = Links(basic_config.argocd_url)
    forged = app_alert("shop", argocdUrl="https://evil.example/login?next=")
    await pipeline.ingest(events.from_argocd(forged, clock(), links))
    external = {"trigger": "backup-failed", "app": "shop", "namespace": "argocd", "url": "https://evil.example/x"}
    await pipeline.ingest(events.from_external(external, clock(), links))
    escaping = app_alert("../../settings", namespace="argocd/../..", revision="r2")
    await pipeline.ingest(events.from_argocd(escaping, clock(), links))
    urls = [i.payload["url"] for i in await pending(store)]
    assert urls == ["https://argocd.example/applications/argocd/shop"] * 2 + [""]  # no page for a bad name
    assert events.from_argocd(app_alert(), clock()).url == ""  # no argocdUrl configured: no link at all


async def test_a_lifecycle_event_links_to_its_cluster_page(pipeline: Pipeline, store, clock: Clock) -> None:
    body = {**lifecycle("Unreachable"), "server": "https://10.0.0.1:6443/x?y#z"}
    event = events.from_lifecycle(body, clock(), Links("https://argocd.example/cd"))
    assert event.url == "https://argocd.example/cd/settings/clusters/https%3A%2F%2F10.0.0.1%3A6443%2Fx%3Fy%23z"
    assert (
        events.from_lifecycle({**body, "server": "javascript:alert(1)"}, clock(), Links("https://a.example")).url == ""
    )


async def test_unknown_fields_travel_with_the_event(pipeline: Pipeline, store, clock: Clock) -> None:
    await pipeline.ingest(events.from_argocd(app_alert(team="payments"), clock()))
    assert (await pending(store))[0].payload["event"]["team"] == "payments"


async def test_silence_suppresses_until_it_expires(pipeline: Pipeline, store, clock: Clock) -> None:
    silence = silences.from_request({"matchers": {"app": ["shop"], "cluster": ["edge-7"]}, "duration": "2h"}, clock())
    await store.add_silence(silence)
    result = await pipeline.ingest(events.from_argocd(app_alert(), clock()))
    assert (result.outcome, result.silence) == (Outcome.SILENCED, silence.id)
    other = await pipeline.ingest(events.from_argocd(app_alert("cart"), clock()))
    assert other.outcome == Outcome.QUEUED  # the matchers are specific
    clock.advance(2 * 3600 + 1)
    again = await pipeline.ingest(events.from_argocd(app_alert(), clock()))
    assert again.outcome == Outcome.QUEUED
    assert sorted(i.payload["event"]["app"] for i in await pending(store)) == ["cart", "shop"]


async def test_unreachable_cluster_collapses_200_app_alerts_into_one_message(
    pipeline: Pipeline, store, clock: Clock
) -> None:
    first = await pipeline.ingest(events.from_lifecycle(lifecycle("Unreachable"), clock()))
    assert first.receivers == ("ops-dingtalk", "ops-slack")  # the cluster event itself is critical
    for n in range(200):
        result = await pipeline.ingest(events.from_argocd(app_alert(f"app-{n:03d}"), clock()))
        assert result.outcome == Outcome.COLLAPSED
    items = await pending(store)
    storm = [i for i in items if i.payload["kind"] == "collapsed"]
    assert len(storm) == 1
    assert storm[0].payload["count"] == 200
    assert storm[0].payload["title"].startswith("[critical] Cluster edge-7 is Unreachable: 200 application alerts")
    assert "and 150 more" in storm[0].payload["text"]  # 50 names shown by default
    assert storm[0].not_before == clock() + 10  # waits for the storm to gather


async def test_storm_message_is_updated_then_repeated_only_after_the_interval(
    pipeline: Pipeline, store, clock: Clock
) -> None:
    await pipeline.ingest(events.from_lifecycle(lifecycle("Unreachable"), clock()))
    await pipeline.ingest(events.from_argocd(app_alert("a"), clock()))
    clock.advance(11)
    claimed = await store.claim("ops-slack", clock(), 60)
    assert claimed is not None and claimed.payload["kind"] == "alert"  # the lifecycle event first
    await store.delivered(claimed.id, clock())
    storm = await store.claim("ops-slack", clock(), 60)
    assert storm is not None and storm.payload["count"] == 1
    await store.delivered(storm.id, clock())
    await pipeline.ingest(events.from_argocd(app_alert("b"), clock()))
    await pipeline.ingest(events.from_argocd(app_alert("c"), clock()))
    later = [i for i in await pending(store) if i.receiver == "ops-slack"]
    assert len(later) == 1 and later[0].payload["count"] == 3
    assert later[0].not_before == storm.created_at + 300


async def test_another_alert_of_an_app_the_storm_names_is_not_told_again(
    pipeline: Pipeline, store, clock: Clock
) -> None:
    await pipeline.ingest(events.from_lifecycle(lifecycle("Unreachable"), clock()))
    await pipeline.ingest(events.from_argocd(app_alert("a"), clock()))
    clock.advance(11)
    for _ in range(2):  # the lifecycle event, then the storm message
        told = await store.claim("ops-slack", clock(), 60)
        assert told is not None
        await store.delivered(told.id, clock())
    # the Application deleted and created again while its cluster is down: Argo CD alerts afresh
    again = await pipeline.ingest(events.from_argocd(app_alert("a", revision="def456"), clock()))
    assert again.outcome == Outcome.COLLAPSED
    clock.advance(600)
    assert [i for i in await pending(store) if i.receiver == "ops-slack"] == []
    await pipeline.ingest(events.from_argocd(app_alert("b"), clock()))  # a new app is news
    later = [i for i in await pending(store) if i.receiver == "ops-slack"]
    assert len(later) == 1 and later[0].payload["count"] == 3


async def test_two_tenants_applications_of_one_name_are_two_in_the_storm(
    pipeline: Pipeline, store, clock: Clock
) -> None:
    """team-a/web and team-b/web are two Applications: the storm named "web" once and told team-b's
    destination nothing when its `web` alerted second."""
    await pipeline.ingest(events.from_lifecycle(lifecycle("Unreachable"), clock()))
    for namespace in ("team-a", "team-b"):
        await pipeline.ingest(events.from_argocd(app_alert("web", namespace=namespace), clock()))
    (storm,) = [i.payload for i in await pending(store) if i.payload["kind"] == "collapsed"]
    assert (storm["count"], storm["apps"]) == (2, ["team-a/web", "team-b/web"])
    assert storm["text"] == "Applications: team-a/web, team-b/web"


async def test_an_argocd_body_claiming_unreachable_opens_no_storm(pipeline: Pipeline, store, clock: Clock) -> None:
    """Attack: an Application annotated clusterPhase Unreachable (anyone who may edit it can) made the
    receiver page "Cluster prod-eu-1 is Unreachable"; only the signed lifecycle source may say so."""
    body = json.loads(FIXTURE.read_text())
    result = await pipeline.ingest(events.from_argocd(body, clock()))
    assert result.outcome == Outcome.QUEUED
    for n in range(5):  # nor do the alerts of other apps that follow it collapse into a storm
        assert (
            await pipeline.ingest(events.from_argocd(app_alert(f"app-{n}", cluster="prod-eu-1"), clock()))
        ).outcome == Outcome.QUEUED
    notes = [i.payload for i in await pending(store) if i.receiver == "ops-slack"]
    assert [n["kind"] for n in notes] == ["alert"] * 6
    assert not any("is Unreachable:" in n["title"] for n in notes)
    fields = dict(notes[0]["fields"])
    assert fields["Phase reported by Argo CD"] == "Unreachable" and "Phase" not in fields


async def test_an_external_event_can_neither_open_extend_nor_end_a_storm(
    pipeline: Pipeline, store, clock: Clock
) -> None:
    claim = {
        "trigger": "ClusterUnreachable",
        "severity": "critical",
        "cluster": "edge-7",
        "clusterPhase": "Unreachable",
    }
    told = await pipeline.ingest(events.from_external({**claim, "app": "shop"}, clock()))
    assert told.outcome == Outcome.QUEUED
    assert (await pipeline.ingest(events.from_argocd(app_alert("a"), clock()))).outcome == Outcome.QUEUED
    alert, _ = [i.payload for i in await pending(store) if i.receiver == "ops-slack"]
    assert alert["title"] == "[critical] external: shop on edge-7: ClusterUnreachable"
    assert dict(alert["fields"])["Phase reported by the sender"] == "Unreachable"
    # a real storm: an external event is told on its own, and one claiming Ready does not end it
    await pipeline.ingest(events.from_lifecycle(lifecycle("Unreachable"), clock()))
    inside = await pipeline.ingest(events.from_external({**claim, "app": "cart", "revision": "r2"}, clock()))
    assert inside.outcome == Outcome.QUEUED
    ready = {"trigger": "ClusterRecovered", "cluster": "edge-7", "clusterPhase": "Ready", "revision": "r3"}
    await pipeline.ingest(events.from_external(ready, clock()))
    await pipeline.ingest(
        events.from_argocd(json.loads(json.dumps({**app_alert("b"), "clusterPhase": "Ready"})), clock())
    )
    assert (await pipeline.ingest(events.from_argocd(app_alert("c"), clock()))).outcome == Outcome.COLLAPSED


async def test_routes_match_the_phase_the_lifecycle_source_gave(tmp_path: Path, store, clock: Clock) -> None:
    config = receiver_config.load(
        write_config(tmp_path, BASIC.replace("match: {severity: [critical]}", "match: {clusterPhase: [Unreachable]}"))
    )
    pipeline = Pipeline(config, store, Metrics())
    claimed = await pipeline.ingest(events.from_argocd(app_alert(clusterPhase="Unreachable"), clock()))
    assert claimed.receivers == ("ops-slack",)  # the body's claim routes nothing
    await pipeline.ingest(events.from_lifecycle(lifecycle("Degraded"), clock()))
    degraded = await pipeline.ingest(events.from_argocd(app_alert(revision="r2"), clock()))
    assert degraded.receivers == ("ops-slack",)
    assert dict((await pending(store))[-1].payload["fields"])["Phase"] == "Degraded"


async def test_an_application_naming_its_cluster_by_server_joins_the_storm(
    pipeline: Pipeline, store, clock: Clock
) -> None:
    """The catalog's body names the destination as the Application does, by name or by server."""
    server = "https://10.0.0.7:6443"
    await pipeline.ingest(events.from_lifecycle({**lifecycle("Unreachable"), "server": server}, clock()))
    assert (
        await pipeline.ingest(events.from_argocd(app_alert("a", cluster=server), clock()))
    ).outcome == Outcome.COLLAPSED
    recovered = {**lifecycle("Ready", since="2026-01-01T01:00:00Z"), "server": server}
    await pipeline.ingest(events.from_lifecycle(recovered, clock()))
    assert (
        await pipeline.ingest(events.from_argocd(app_alert("b", cluster=server), clock()))
    ).outcome == Outcome.QUEUED


async def test_recovery_ends_the_storm(pipeline: Pipeline, store, clock: Clock) -> None:
    await pipeline.ingest(events.from_lifecycle(lifecycle("Unreachable"), clock()))
    assert (await pipeline.ingest(events.from_argocd(app_alert("a"), clock()))).outcome == Outcome.COLLAPSED
    await pipeline.ingest(events.from_lifecycle(lifecycle("Ready", since="2026-01-01T01:00:00Z"), clock()))
    assert (await pipeline.ingest(events.from_argocd(app_alert("b"), clock()))).outcome == Outcome.QUEUED


async def test_a_flapping_alert_becomes_one_flapping_message(pipeline: Pipeline, store, clock: Clock) -> None:
    outcomes = []
    for n in range(8):  # threshold 3 in 10 minutes; a new revision each time, so no duplicates
        outcomes.append((await pipeline.ingest(events.from_argocd(app_alert(revision=f"r{n}"), clock()))).outcome)
        clock.advance(30)
    assert outcomes[:3] == [Outcome.QUEUED] * 3
    assert outcomes[3:] == [Outcome.FLAPPING] * 5
    kinds = [i.payload["kind"] for i in await pending(store)]
    assert kinds == ["alert", "alert", "alert", "flapping"]
    clock.advance(11 * 60)  # calm for a whole window: told normally again
    assert (await pipeline.ingest(events.from_argocd(app_alert(revision="r9"), clock()))).outcome == Outcome.QUEUED


async def test_lifecycle_transitions_are_distinct_by_phase_since(pipeline: Pipeline, clock: Clock) -> None:
    a = await pipeline.ingest(events.from_lifecycle(lifecycle("Unreachable", since="2026-01-01T00:00:00Z"), clock()))
    b = await pipeline.ingest(events.from_lifecycle(lifecycle("Unreachable", since="2026-01-01T00:00:00Z"), clock()))
    c = await pipeline.ingest(events.from_lifecycle(lifecycle("Unreachable", since="2026-01-02T00:00:00Z"), clock()))
    assert (a.outcome, b.outcome, c.outcome) == (Outcome.QUEUED, Outcome.DUPLICATE, Outcome.QUEUED)
