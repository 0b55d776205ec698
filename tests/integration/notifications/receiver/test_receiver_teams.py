"""Routing per team through `argocd-lifecycle receiver serve`, with the config of docs/guide/tenants.md
("Routing per team") and one loopback destination per team: each team's Argo CD alerts and held mass
drops reach its destination only, a project silence takes one team's, and an Unreachable cluster is one
collapsed message per team naming that team's Applications. On SQLite and on Redis."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from argocd_lifecycle.generators.fleet.held import external_event
from argocd_lifecycle.generators.fleet.view import Hold, Target
from tests.integration.notifications.receiver import loopback
from tests.integration.notifications.receiver.conftest import (
    ADMIN_TOKEN,
    EXTERNAL_SECRET,
    LIFECYCLE_SECRET,
    TOKEN,
    ReceiverProcess,
)
from tests.integration.notifications.receiver.test_receiver_scenarios import ALERT, UNREACHABLE
from tests.unit.docs.blocks import REPO, blocks

DOC = REPO / "docs" / "guide" / "tenants.md"
#: the destinations of the docs' config, and the loopback kind standing in for each
DESTINATIONS = {"platform-slack": "slack", "team-a-slack": "slack", "team-b-teams": "teams"}


@pytest.fixture
def destinations() -> Iterator[dict[str, loopback.Sink]]:
    started = {name: loopback.start(kind) for name, kind in DESTINATIONS.items()}
    yield started
    for sink in started.values():
        assert sink.server is not None
        sink.server.shutdown()
        sink.server.server_close()


def docs_config(tmp_path: Path, destinations: dict[str, loopback.Sink]) -> Path:
    """The docs' block as written, its files holding the test's secrets and the loopback URLs; only the
    storm's wait is shortened."""
    (block,) = [b for b in blocks(DOC) if b.lang == "yaml" and "team-a-slack" in b.text]
    config = yaml.safe_load(block.text)
    config["storm"] = {"groupWait": "2s", "groupInterval": "1h"}
    files: dict[str, bytes] = {
        config["inbound"]["tokenFile"]: TOKEN.encode(),
        config["inbound"]["lifecycleSecretFile"]: LIFECYCLE_SECRET,
        config["inbound"]["externalSecretFile"]: EXTERNAL_SECRET,
        config["admin"]["tokenFile"]: ADMIN_TOKEN.encode(),
        **{r["urlFile"]: destinations[r["name"]].url.encode() for r in config["receivers"]},
    }
    for name, content in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(content)
    path = tmp_path / "receiver.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def texts(sink: loopback.Sink) -> list[str]:
    """Every delivered message as one string (Slack blocks or a Teams card), to look for names in."""
    return [json.dumps(body) for body in sink.bodies()]


def held(appset: str, project: str = "") -> dict[str, Any]:
    """The generator's MassDropHeld body for ``appset`` (``namespace/name``)."""
    body: dict[str, Any] = external_event(Hold(appset, (Target("https://a", "a"),), 2, "held"), "argocd", "ep-1")
    if project:  # the ApplicationSet's template project, where the generator knows it
        body["project"] = project
    return body


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_each_team_hears_of_its_own_applications_only(
    backend: str, tmp_path: Path, destinations: dict[str, loopback.Sink], request: pytest.FixtureRequest
) -> None:
    state = f"sqlite:///{tmp_path}/state.db"
    if backend == "redis":
        state = request.getfixturevalue("redis_url").rsplit("/", 1)[0] + "/5"  # a database no other test uses
    receiver = ReceiverProcess(docs_config(tmp_path, destinations), state, tmp_path / "receiver.log").start()
    try:

        def alert(app: str, namespace: str, project: str, **extra: str) -> str:
            body = {**ALERT, "app": app, "namespace": namespace, "project": project, **extra}
            answer = receiver.argocd(body).json()
            return f"{answer['status']} {','.join(answer['receivers'])}"

        def external(body: dict[str, Any]) -> str:
            raw, headers = receiver.signed("/v1/events/external", body)
            answer = receiver.http.post("/v1/events/external", content=raw, headers=headers).json()
            return f"{answer['status']} {','.join(answer['receivers'])}"

        assert alert("web", "team-a", "team-a") == "queued team-a-slack"  # the namespace route
        assert alert("web", "team-b", "team-b") == "queued team-b-teams"  # the project route
        assert alert("guestbook", "argocd", "default") == "queued platform-slack"
        assert external(held("team-a/web")) == "queued team-a-slack"
        assert external(held("team-b/web", project="team-b")) == "queued team-b-teams"

        auth = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        silence = {"matchers": {"project": ["team-a"]}, "duration": "1h", "comment": "team-a's deploy window"}
        created = receiver.http.post("/v1/silences", json=silence, headers=auth)
        assert created.status_code == 201
        assert alert("api", "team-a", "team-a").startswith("silenced")
        assert alert("api", "team-b", "team-b") == "queued team-b-teams"
        assert receiver.http.delete(f"/v1/silences/{created.json()['id']}", headers=auth).status_code == 204
        receiver.settled()

        # one cluster down: every team's alerts collapse, each destination told of its own
        assert receiver.lifecycle(UNREACHABLE).status_code == 202
        collapsed = {
            alert("db", "team-a", "team-a", revision="r2"),
            alert("web", "team-b", "team-b", revision="r2"),
            alert("cache", "team-b", "team-b", revision="r2"),
            alert("guestbook", "argocd", "default", revision="r2"),
        }
        assert collapsed == {"collapsed team-a-slack", "collapsed team-b-teams", "collapsed platform-slack"}
        receiver.settled()
    finally:
        receiver.stop()

    a, b, platform = (texts(destinations[n]) for n in ("team-a-slack", "team-b-teams", "platform-slack"))
    assert all(sink.errors == [] for sink in destinations.values())
    assert len(a) == 3 and len(b) == 4 and len(platform) == 3  # alert, held, (silenced), storm; + the cluster event
    assert "team-a/db" in a[-1] and "is Unreachable: 1 application alert collapsed" in a[-1]
    assert "is Unreachable: 2 application alerts collapsed" in b[-1]
    assert "team-b/cache, team-b/web" in b[-1]
    assert "ClusterUnreachable" in platform[-2] and "argocd/guestbook" in platform[-1]
    assert not any("team-b" in t for t in a) and not any("team-a" in t for t in b)
