"""Routing per team (docs/guide/tenants.md "Routing per team", whose config is the one run here):
routes and silences on namespace and project, for the catalog's Argo CD bodies and the generator's
MassDropHeld, and an Unreachable cluster's storm collapsed per destination, each naming its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from argocd_lifecycle.generators.fleet.held import external_event
from argocd_lifecycle.generators.fleet.view import Hold, Target
from argocd_lifecycle.notifications.receiver import events, silences
from argocd_lifecycle.notifications.receiver.config import ReceiverConfig, parse
from argocd_lifecycle.notifications.receiver.metrics import Metrics
from argocd_lifecycle.notifications.receiver.pipeline import Outcome, Pipeline
from argocd_lifecycle.notifications.receiver.sqlite_state import SqliteState
from argocd_lifecycle.notifications.receiver.state import PENDING, OutboxItem
from tests.unit.docs.blocks import REPO, blocks, write_named_files
from tests.unit.notifications.receiver.conftest import Clock

pytestmark = pytest.mark.anyio
DOC = REPO / "docs" / "guide" / "tenants.md"
#: the catalog's webhook body, as the notifications controller posts it
CATALOG_BODY = json.loads((REPO / "tests" / "fixtures" / "notifications" / "webhook-body.json").read_text())
NOW = Clock()()
TEAM_A, TEAM_B, PLATFORM = ("team-a-slack",), ("team-b-teams",), ("platform-slack",)


@pytest.fixture
def teams_config(tmp_path: Path) -> ReceiverConfig:
    (block,) = [b for b in blocks(DOC) if b.lang == "yaml" and "team-a-slack" in b.text]
    write_named_files(block, tmp_path)
    return parse(yaml.safe_load(block.text), block.where, tmp_path)


@pytest.fixture
def store(tmp_path: Path) -> SqliteState:
    return SqliteState.open(str(tmp_path / "state.db"))


@pytest.fixture
def pipeline(teams_config: ReceiverConfig, store: SqliteState) -> Pipeline:
    return Pipeline(teams_config, store, Metrics())


def argocd(app: str, namespace: str, project: str, *, at: float = NOW, **extra: str) -> events.Event:
    body = {**CATALOG_BODY, "trigger": "on-sync-failed", "severity": "warning", "clusterPhase": "Ready",
            "app": app, "namespace": namespace, "project": project, **extra}  # fmt: skip
    return events.from_argocd(body, at)  # type: ignore[arg-type]


def held(appset: str, project: str = "") -> events.Event:
    body: dict[str, Any] = external_event(Hold(appset, (Target("https://a", "a"),), 2, "held"), "argocd", "ep-1")
    if project:  # the ApplicationSet's template project, where the generator knows it
        body["project"] = project
    return events.from_external(body, NOW)  # type: ignore[arg-type]


def lifecycle(phase: str, since: str, at: float = NOW) -> events.Event:
    reason = {"Unreachable": "ClusterUnreachable", "Ready": "ClusterRecovered"}[phase]
    body = {"reason": reason, "cluster": "prod-eu-1", "phase": phase, "previousPhase": "Ready", "since": since}
    return events.from_lifecycle(body, at)  # type: ignore[arg-type]


async def outbox(store: SqliteState) -> list[OutboxItem]:
    return await store.outbox(PENDING, 1000)


async def test_each_teams_argocd_messages_go_to_its_destination_only(pipeline: Pipeline, store) -> None:
    assert (await pipeline.ingest(argocd("web", "team-a", "team-a"))).receivers == TEAM_A  # on namespace
    assert (await pipeline.ingest(argocd("web", "team-b", "team-b"))).receivers == TEAM_B  # on project
    # project team-b's Application kept in the Argo CD namespace: the project route still finds it
    assert (await pipeline.ingest(argocd("billing", "argocd", "team-b"))).receivers == TEAM_B
    assert (await pipeline.ingest(argocd("guestbook", "argocd", "default"))).receivers == PLATFORM
    sent = {(i.receiver, i.payload["event"]["namespace"], i.payload["event"]["app"]) for i in await outbox(store)}
    assert sent == {("team-a-slack", "team-a", "web"), ("team-b-teams", "team-b", "web"),
                    ("team-b-teams", "argocd", "billing"), ("platform-slack", "argocd", "guestbook")}  # fmt: skip


async def test_a_held_mass_drop_goes_to_its_teams_destination_only(pipeline: Pipeline, store) -> None:
    assert (await pipeline.ingest(held("team-a/web"))).receivers == TEAM_A  # the ApplicationSet's namespace
    assert (await pipeline.ingest(held("team-b/web", project="team-b"))).receivers == TEAM_B
    assert (await pipeline.ingest(held("guestbook"))).receivers == PLATFORM  # the Argo CD namespace's own
    titles = {i.receiver: i.payload["title"] for i in await outbox(store)}
    assert titles["team-a-slack"] == "[critical] external: MassDropHeld"


async def test_a_silence_scoped_to_a_project_silences_that_team_only(pipeline: Pipeline, store) -> None:
    silence = silences.from_request({"matchers": {"project": ["team-a"]}, "duration": "2h"}, NOW)
    await store.add_silence(silence)
    for event in (argocd("web", "team-a", "team-a"), held("team-a/web", project="team-a")):
        result = await pipeline.ingest(event)
        assert (result.outcome, result.silence) == (Outcome.SILENCED, silence.id)
    told = [await pipeline.ingest(e) for e in (argocd("web", "team-b", "team-b"), held("team-b/web", "team-b"))]
    assert [(r.outcome, r.receivers) for r in told] == [(Outcome.QUEUED, TEAM_B)] * 2
    assert {i.receiver for i in await outbox(store)} == set(TEAM_B)


async def test_a_silence_scoped_to_a_namespace_takes_a_held_without_project(pipeline: Pipeline, store) -> None:
    await store.add_silence(silences.from_request({"matchers": {"namespace": ["team-a"]}, "duration": "1h"}, NOW))
    assert (await pipeline.ingest(held("team-a/web"))).outcome == Outcome.SILENCED
    assert (await pipeline.ingest(held("team-b/web"))).outcome == Outcome.QUEUED


async def test_an_unreachable_clusters_storm_is_told_to_each_team_with_its_own_applications(
    pipeline: Pipeline, store
) -> None:
    """One cluster, Applications of three teams: each destination gets one collapsed message naming its
    own Applications only (team-a and team-b each have a `web`: both count), and the cluster's recovery
    ends every one of them."""
    assert (await pipeline.ingest(lifecycle("Unreachable", "2026-01-01T00:00:00Z"))).receivers == PLATFORM
    for event in (argocd("web", "team-a", "team-a"), argocd("api", "team-a", "team-a"),
                  argocd("web", "team-b", "team-b"), argocd("guestbook", "argocd", "default")):  # fmt: skip
        assert (await pipeline.ingest(event)).outcome == Outcome.COLLAPSED
    storms = {i.receiver: i.payload for i in await outbox(store) if i.payload["kind"] == "collapsed"}
    assert {r: (p["count"], p["apps"]) for r, p in storms.items()} == {
        "team-a-slack": (2, ["team-a/api", "team-a/web"]),
        "team-b-teams": (1, ["team-b/web"]),
        "platform-slack": (1, ["argocd/guestbook"]),
    }
    title = "[critical] Cluster prod-eu-1 is Unreachable: 2 application alerts collapsed"
    assert storms["team-a-slack"]["title"] == title
    assert "team-b" not in json.dumps(storms["team-a-slack"]) and "team-a" not in json.dumps(storms["team-b-teams"])

    await pipeline.ingest(lifecycle("Ready", "2026-01-01T01:00:00Z"))
    after = [await pipeline.ingest(argocd(app, ns, ns, revision="r2")) for app, ns in (("web", "team-a"),
                                                                                      ("web", "team-b"))]  # fmt: skip
    assert [(r.outcome, r.receivers) for r in after] == [(Outcome.QUEUED, TEAM_A), (Outcome.QUEUED, TEAM_B)]
    # the next outage is a storm of its own for each destination, not the old one continued
    before = {i.id for i in await outbox(store)}
    await pipeline.ingest(lifecycle("Unreachable", "2026-01-01T02:00:00Z", at=NOW + 3600))
    third = argocd("web", "team-a", "team-a", revision="r3", at=NOW + 3600)
    assert (await pipeline.ingest(third)).outcome == Outcome.COLLAPSED
    (again,) = [i for i in await outbox(store) if i.id not in before and i.payload["kind"] == "collapsed"]
    assert (again.receiver, again.payload["count"], again.payload["apps"]) == ("team-a-slack", 1, ["team-a/web"])
