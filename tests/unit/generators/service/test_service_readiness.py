"""GET /readyz: ready once every watch listed and while none is broken past --max-staleness; /healthz stays
liveness (it said ok while one bad Secret kept every ApplicationSet at 503: issue 24, finding 2)."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from argocd_lifecycle.generators.capi.store import ScopeState
from argocd_lifecycle.generators.service.app import build_app
from argocd_lifecycle.generators.service.readiness import problems
from argocd_lifecycle.generators.service.settings import ServiceSettings

from .fleet_fixture import AppsBaseline, MemoryFleet


def _client(fleet: MemoryFleet, apps: AppsBaseline, token_file: Path, watches: list[ScopeState]) -> TestClient:
    settings = ServiceSettings.from_options(token_file=token_file, max_staleness=30)  # type: ignore[arg-type]
    return TestClient(build_app(fleet, settings, baseline=apps, watches=lambda: watches))


def test_not_ready_until_every_watch_listed_and_while_one_is_broken_past_max_staleness(
    fleet: MemoryFleet, token_file: Path
) -> None:
    apps = AppsBaseline()
    capi = [ScopeState("clusters in namespace capi-clusters", listed=False)]
    client = _client(fleet, apps, token_file, capi)
    fleet.set_synced(False)
    response = client.get("/readyz")  # no token: the kubelet has none
    assert response.status_code == 503 and response.json()["reason"] == "not_ready"
    assert response.json()["message"] == (
        "not ready: the cluster Secret watch has not listed yet; "
        "the clusters in namespace capi-clusters watch has not listed yet"
    )
    assert client.get("/healthz").status_code == 200  # liveness is not readiness
    fleet.set_synced(True)
    capi[0] = ScopeState("clusters in namespace capi-clusters", listed=True, broken_seconds=29)
    assert client.get("/readyz").json() == {"status": "ready"}
    apps.stale = 31.0
    assert client.get("/readyz").json()["message"] == (
        "not ready: the Application watch has been broken for 31s (more than --max-staleness 30s)"
    )
    apps.stale, fleet.stale = 0.0, 0.0
    capi.clear()  # a follower: the CAPI watches are not its business
    assert client.get("/readyz").status_code == 200


def test_readiness_is_in_the_openapi_document(fleet: MemoryFleet, token_file: Path) -> None:
    doc = _client(fleet, AppsBaseline(), token_file, []).get("/openapi.json").json()
    assert doc["paths"]["/readyz"]["get"]["operationId"] == "ready"
    assert "503" in doc["paths"]["/readyz"]["get"]["responses"]


def test_problems_name_each_watch() -> None:
    watches = [ScopeState("a", True, 5.0), ScopeState("b", False), ScopeState("c", True, 61.0)]
    assert problems(watches, 60) == [
        "the b watch has not listed yet",
        "the c watch has been broken for 61s (more than --max-staleness 60s)",
    ]
