"""The fleet page's rollouts and ``GET /api/v1/rollouts``: one row per ApplicationSet with a rollout, from
what the keeper holds (no call per view), escaped, bounded, described by the OpenAPI document; no section
without Kubernetes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from markupsafe import escape
from starlette.testclient import TestClient

from argocd_lifecycle.generators.fleet.view import ClusterState
from argocd_lifecycle.generators.rollout.machine import Decision
from argocd_lifecycle.generators.rollout.spec import RolloutSpec
from argocd_lifecycle.generators.rollout.state import RolloutState, Status
from argocd_lifecycle.generators.rollout.summary import Planned, RolloutSummary
from argocd_lifecycle.generators.service.app import build_app
from argocd_lifecycle.generators.service.fleet_page import MAX_ROLLOUTS, FleetPage
from argocd_lifecycle.generators.service.settings import ServiceSettings

from .conftest import TOKEN
from .fleet_fixture import MemoryFleet

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
SINCE = NOW - timedelta(minutes=12)


class Held:
    """A Rollouts holding fixed summaries, counting the page's reads."""

    def __init__(self, summaries: Sequence[RolloutSummary]) -> None:
        self.held = list(summaries)
        self.reads = 0

    def plan(self, appset: str, spec: RolloutSpec, clusters: Sequence[ClusterState]) -> Mapping[str, Decision]:
        raise AssertionError("a page view planned a rollout")

    def summaries(self) -> Sequence[RolloutSummary]:
        self.reads += 1
        return self.held


def state(revision: str = "v2.3.0", status: Status = Status.ROLLING, wave: int = 1, **extra: Any) -> RolloutState:
    return RolloutState(revision, "v2.2.0", status, wave, SINCE, given=frozenset({"c0", "c1", "c2"}), **extra)


EU = RolloutSummary(
    "guestbook",
    state(),
    planned=Planned(("canary", "eu", "rest"), {"Done": 2, "Rolling": 1, "Waiting": 3}, NOW - timedelta(seconds=5)),
)
PAUSED = RolloutSummary(
    "payments", state(status=Status.PAUSED, wave=0, reason="payments-canary Degraded"), planned=Planned(("canary",))
)
FOLLOWER = RolloutSummary("web", state(status=Status.BAKING, wave=0))  # not planned by this replica
UNREADABLE = RolloutSummary("broken", unreadable="annotation argocd-lifecycle.io/rollout: not JSON")


def client(tmp_path: Path, rollouts: Held | None) -> TestClient:
    token = tmp_path / "token"
    token.write_text(TOKEN)
    settings = ServiceSettings.from_options(token_file=token, drop_settle=0.0)
    return TestClient(build_app(MemoryFleet(), settings, rollouts=rollouts))  # type: ignore[arg-type]


def test_the_route_lists_each_rollout_by_name(tmp_path: Path) -> None:
    held = Held([PAUSED, EU, UNREADABLE, FOLLOWER])
    doc = client(tmp_path, held).get("/api/v1/rollouts").json()  # no token: like /api/v1/clusters
    assert [r["applicationSet"] for r in doc["rollouts"]] == ["broken", "guestbook", "payments", "web"]
    assert doc["more"] == 0 and held.reads == 1
    by_name = {r["applicationSet"]: r for r in doc["rollouts"]}
    assert by_name["guestbook"] == {
        "applicationSet": "guestbook",
        "status": "Rolling",
        "revision": "v2.3.0",
        "previous": "v2.2.0",
        "wave": 1,
        "waveName": "eu",
        "waves": 3,
        "since": "2026-01-05T11:48:00Z",
        "reason": "",
        "refused": "",
        "given": 3,
        "clustersAtRevision": 2,
        "clusters": 6,
        "clusterStates": {"Done": 2, "Rolling": 1, "Waiting": 3},
        "plannedAt": "2026-01-05T11:59:55Z",
        "unreadable": "",
    }
    assert by_name["web"]["clusters"] is None and by_name["web"]["given"] == 3 and by_name["web"]["waves"] is None
    assert by_name["broken"]["status"] == "Unknown" and by_name["broken"]["unreadable"].endswith("not JSON")
    assert by_name["broken"]["wave"] is None and by_name["broken"]["given"] is None


def test_without_kubernetes_the_route_is_empty_and_the_page_has_no_section(tmp_path: Path) -> None:
    c = client(tmp_path, None)
    assert c.get("/api/v1/rollouts").json() == {"rollouts": [], "more": 0}
    assert "<h2>Rollouts</h2>" not in c.get("/").text


def test_no_rollout_says_so(tmp_path: Path) -> None:
    page = client(tmp_path, Held([])).get("/").text
    assert "<h2>Rollouts</h2>" in page
    assert '<p class="muted" id="rollouts-none">No ApplicationSet has a rollout.</p>' in page


def _row(page: str, appset: str) -> str:
    start = page.index(f'<tr data-rollout="{appset}">')
    return page[start : page.index("</tr>", start)]


def test_the_page_shows_revision_wave_status_clusters_and_since() -> None:
    page = FleetPage(15).render(MemoryFleet(), NOW, rollouts=[EU, PAUSED, FOLLOWER, UNREADABLE])
    eu = _row(page, "guestbook")
    assert 'v2.3.0 <span class="muted">from v2.2.0</span>' in eu
    assert "<td>2/3 eu</td>" in eu
    assert '<span class="status status-Rolling">Rolling</span>' in eu
    assert '<td class="num">2/6</td>' in eu
    assert '<td class="num" data-since="2026-01-05T11:48:00Z">12m</td>' in eu
    paused = _row(page, "payments")
    assert '<span class="status status-Paused">Paused</span>' in paused
    assert "<td>1/1 canary</td>" in paused and "<td>payments-canary Degraded</td>" in paused
    follower = _row(page, "web")
    assert '<span class="muted">3 given</span>' in follower and "<td>1</td>" in follower
    unreadable = _row(page, "broken")
    assert "Unknown" in unreadable and "not JSON" in unreadable


def test_a_finished_rollout_says_all_waves_done() -> None:
    done = RolloutSummary("guestbook", state(status=Status.DONE, wave=3), planned=Planned(("a", "b", "c"), {"Done": 6}))
    assert "<td>all 3 waves done</td>" in FleetPage(15).render(MemoryFleet(), NOW, rollouts=[done])
    refused = RolloutSummary("guestbook", state(status=Status.DONE, wave=3, refused="v1.0.0"))
    assert "refused v1.0.0 (rolled out before; declare rollback: true)" in _row(
        FleetPage(15).render(MemoryFleet(), NOW, rollouts=[refused]), "guestbook"
    )


HOSTILE = [
    '"><script>alert(1)</script>',
    "<img src=x onerror=alert(1)>",
    "</td></tr></table><script>alert(2)</script>",
    "javascript:alert(3)//' onmouseover='alert(4)",
    "{{ 7*7 }}{% raw %}",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_names_and_annotation_content_are_escaped(text: str, tmp_path: Path) -> None:
    hostile = RolloutSummary(
        text,
        RolloutState(text, text, Status.PAUSED, 0, SINCE, reason=text, refused=text, given=frozenset({text})),
        planned=Planned((text,), {"Paused": 1}),
    )
    broken = RolloutSummary(text + "-2", unreadable=text)
    page = FleetPage(15).render(MemoryFleet(), NOW, rollouts=[hostile, broken])
    assert text not in page.replace(str(escape(text)), "")  # only ever escaped
    assert "<script>alert" not in page and "onerror=alert" not in page.replace("onerror=alert(1)&gt;", "")
    assert str(escape(text)) in page
    assert page.count("<tr data-rollout=") == 2
    # the JSON is JSON: the text comes back as it was
    doc = client(tmp_path, Held([hostile])).get("/api/v1/rollouts").json()
    (row,) = doc["rollouts"]
    assert (row["applicationSet"], row["revision"], row["reason"], row["waveName"]) == (text, text, text, text)


def test_the_page_and_the_route_are_bounded(tmp_path: Path) -> None:
    many = [RolloutSummary(f"appset-{i:04d}", state()) for i in range(MAX_ROLLOUTS + 7)]
    doc = client(tmp_path, Held(many)).get("/api/v1/rollouts").json()
    assert len(doc["rollouts"]) == MAX_ROLLOUTS and doc["more"] == 7
    assert doc["rollouts"][-1]["applicationSet"] == f"appset-{MAX_ROLLOUTS - 1:04d}"
    page = FleetPage(15).render(MemoryFleet(), NOW, rollouts=many)
    assert page.count("<tr data-rollout=") == MAX_ROLLOUTS
    assert f"7 more not listed (the first {MAX_ROLLOUTS} by name)." in page


def _json_schema(node: Any, schemas: Mapping[str, Any]) -> Any:
    """OpenAPI 3.0 to JSON Schema for what these documents use: $ref and nullable."""
    if isinstance(node, list):
        return [_json_schema(n, schemas) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _json_schema(schemas[node["$ref"].rsplit("/", 1)[1]], schemas)
    out = {k: _json_schema(v, schemas) for k, v in node.items() if k != "nullable"}
    return {"anyOf": [out, {"type": "null"}]} if node.get("nullable") else out


def test_the_answer_is_what_the_openapi_document_says(tmp_path: Path) -> None:
    c = client(tmp_path, Held([EU, PAUSED, FOLLOWER, UNREADABLE]))
    openapi = c.get("/openapi.json").json()
    operation = openapi["paths"]["/api/v1/rollouts"]["get"]
    assert operation["operationId"] == "listRollouts"
    schema = _json_schema(
        operation["responses"]["200"]["content"]["application/json"]["schema"], openapi["components"]["schemas"]
    )
    jsonschema.validate(c.get("/api/v1/rollouts").json(), schema)
    row = schema["properties"]["rollouts"]["items"]
    assert set(row["required"]) == set(row["properties"])  # every field always present
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(
            {"rollouts": [{**c.get("/api/v1/rollouts").json()["rollouts"][0], "status": "Sleeping"}], "more": 0}, schema
        )
