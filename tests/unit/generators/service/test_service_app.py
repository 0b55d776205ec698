"""The HTTP surface: protocol, authentication, limits, errors, safety answers, fleet endpoints."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from argocd_lifecycle.model import Phase

from .conftest import TOKEN, ClientFactory
from .fleet_fixture import AppsBaseline, MemoryFleet, Reported, cluster

EXECUTE = "/api/v1/getparams.execute"


def _post(client: TestClient, parameters: dict[str, Any] | None = None, appset: str = "guestbook", **kw: Any) -> Any:
    body: dict[str, Any] = {"applicationSetName": appset, "input": {}}
    if parameters is not None:
        body["input"]["parameters"] = parameters
    return client.post(EXECUTE, json=body, **kw)


def _names(response: Any) -> list[str]:
    assert response.status_code == 200, response.text
    return [p["name"] for p in response.json()["output"]["parameters"]]


def test_answers_argo_cd_request_with_parameter_sets(client: TestClient) -> None:
    response = _post(client)
    assert response.headers["content-type"] == "application/json"
    assert _names(response) == ["edge-7", "old-1", "prod-eu-1", "prod-us-1", "staging-1"]
    edge = response.json()["output"]["parameters"][0]
    assert edge["lifecycle"]["phase"] == "Unreachable"
    assert edge["lifecycle"]["syncEnabled"] == "false"


def test_missing_token_is_401_and_wrong_token_403_with_json_only(client: TestClient) -> None:
    missing = client.post(EXECUTE, json={"applicationSetName": "a"}, headers={"Authorization": ""})
    assert missing.status_code == 401
    assert missing.json() == {
        "message": "missing bearer token (send Authorization: Bearer <token>)",
        "reason": "missing_token",
    }
    assert missing.headers["www-authenticate"] == "Bearer"
    wrong = client.post(EXECUTE, json={"applicationSetName": "a"}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    assert wrong.json() == {"message": "the bearer token does not match the configured token", "reason": "wrong_token"}
    basic = client.post(EXECUTE, json={"applicationSetName": "a"}, headers={"Authorization": f"Basic {TOKEN}"})
    assert basic.status_code == 401


def test_rotated_token_takes_effect_without_restart(client: TestClient, token_file: Path) -> None:
    tmp = token_file.with_suffix(".new")
    tmp.write_text("rotated-token")
    os.replace(tmp, token_file)
    assert _post(client).status_code == 403
    assert _post(client, headers={"Authorization": "Bearer rotated-token"}).status_code == 200


def test_gzip_when_asked_as_argo_cd_go_client_does(client: TestClient) -> None:
    plain = _post(client, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.headers["vary"] == "Accept-Encoding"
    zipped = _post(client, headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert zipped.content == plain.content  # httpx inflates it
    refused = _post(client, headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert "content-encoding" not in refused.headers


def test_insecure_no_auth_needs_no_header(make_client: ClientFactory) -> None:
    client = make_client(token_file=None, insecure_no_auth=True)
    assert client.post(EXECUTE, json={"applicationSetName": "a"}, headers={"Authorization": ""}).status_code == 200


def test_only_post_on_the_execute_path_and_json_404(client: TestClient) -> None:
    response = client.get(EXECUTE)
    assert response.status_code == 405
    assert response.json() == {"message": "Method Not Allowed", "reason": "method_not_allowed"}
    assert response.headers["allow"] == "POST"
    assert client.post("/api/v1/other").status_code == 404


def test_body_over_one_mib_is_413(client: TestClient) -> None:
    big = b'{"applicationSetName":"a","input":{"parameters":{"pad":"' + b"x" * (1 << 20) + b'"}}}'
    response = client.post(EXECUTE, content=big, headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert response.json()["message"] == "request body: larger than the limit of 1048576 bytes"

    def chunks() -> Any:  # no Content-Length: the limit holds while streaming too
        for _ in range(20):
            yield b"x" * 65536

    assert client.post(EXECUTE, content=chunks()).status_code == 413


def test_malformed_json_and_wrong_types_are_400_naming_the_field(client: TestClient) -> None:
    bad = client.post(EXECUTE, content=b"{nope", headers={"Content-Type": "application/json"})
    assert bad.status_code == 400
    assert bad.json()["message"].startswith("request body: not valid JSON")
    wrong = _post(client, {"labelSelector": {"matchLabels": {"env": ["prod"]}}})
    assert wrong.status_code == 400
    assert wrong.json() == {
        "message": "input.parameters.labelSelector.matchLabels.env: expected a string, got a list",
        "reason": "bad_request",
    }


def test_503_until_the_inventory_listed_once(fleet: MemoryFleet, client: TestClient) -> None:
    fleet.set_synced(False)
    response = _post(client)
    assert response.status_code == 503
    assert "has not listed the cluster Secrets yet" in response.json()["message"]
    fleet.set_synced(True)
    assert _post(client).status_code == 200


def test_503_while_the_watch_is_broken_longer_than_max_staleness(
    fleet: MemoryFleet, make_client: ClientFactory
) -> None:
    client = make_client(max_staleness=30)
    fleet.stale = 29.0
    assert _post(client).status_code == 200
    fleet.stale = 31.0
    response = _post(client)
    assert response.status_code == 503
    assert response.json()["message"].startswith("the cluster Secret watch has been broken for 31s")


def _held_gauge(client: TestClient, appset: str) -> str:
    line = f'argocd_lifecycle_getparams_held{{applicationset="{appset}"}}'
    return next(row.split()[-1] for row in client.get("/metrics").text.splitlines() if row.startswith(line))


def test_mass_secret_deletion_is_held_with_the_appset_the_clusters_and_the_way_out(
    fleet: MemoryFleet, make_client: ClientFactory
) -> None:
    reported = Reported()
    client = make_client(reporter=reported)
    assert len(_names(_post(client))) == 5
    for name in ("edge-7", "prod-eu-1", "prod-us-1"):
        fleet.remove(name)  # `kubectl delete secret -l ...`: no decommission first
    refused = _post(client)
    assert refused.status_code == 503
    message = refused.json()["message"]
    assert message.startswith("mass-drop guard: holding ApplicationSet 'guestbook': this answer would drop 3 of")
    assert "5 clusters its Applications target (60% > --max-drop-percent 50): edge-7, prod-eu-1, prod-us-1" in message
    assert "argocd-lifecycle.io/decommission=true" in message and "allowMassDrop: true" in message
    assert _post(client).status_code == 503
    assert [h.appset for h in reported.holds] == ["guestbook", "guestbook"]  # each refusal, told once by the reporter
    assert [t.name for t in reported.holds[0].lost] == ["edge-7", "prod-eu-1", "prod-us-1"]
    assert _held_gauge(client, "guestbook") == "1.0"
    fleet.put(cluster("prod-eu-1"))
    fleet.put(cluster("prod-us-1"))
    assert _names(_post(client)) == ["old-1", "prod-eu-1", "prod-us-1", "staging-1"]  # 1 of 5 lost: given
    assert reported.releases == ["guestbook", "guestbook"]  # the first answer, and the end of the hold
    assert _held_gauge(client, "guestbook") == "0.0"


def test_an_edited_selector_or_min_version_starts_from_the_same_baseline(client: TestClient) -> None:
    assert len(_names(_post(client, {"labelSelector": {"matchLabels": {"env": "prod"}}}))) == 4
    # the old per-input memory gave a new input's first answer whatever it held, even []
    edited = _post(client, {"labelSelector": {"matchLabels": {"env": "typo"}}})
    assert edited.status_code == 503 and "would drop 4 of the 4 clusters" in edited.json()["message"]
    assert _post(client, {"minVersion": "1.40"}).status_code == 503
    assert _post(client, {"labelSelector": {"matchLabels": {"env": "prod"}}, "flatList": True}).status_code == 200


def test_allow_mass_drop_gives_the_answer_which_becomes_the_baseline(fleet: MemoryFleet, client: TestClient) -> None:
    assert len(_names(_post(client))) == 5
    for name in ("edge-7", "prod-us-1", "prod-eu-1"):
        fleet.remove(name)
    assert _post(client).status_code == 503
    assert _names(_post(client, {"allowMassDrop": True})) == ["old-1", "staging-1"]
    assert _names(_post(client)) == ["old-1", "staging-1"]


def test_decommissioned_then_deleted_clusters_leave_without_tripping_the_guard(
    fleet: MemoryFleet, client: TestClient
) -> None:
    assert len(_names(_post(client))) == 5
    for name in ("edge-7", "prod-eu-1", "prod-us-1"):
        fleet.update(name, phase=Phase.DECOMMISSIONING)
        fleet.remove(name)  # 3 of 5 gone, each decommissioned first: explicit departures
    assert _names(_post(client)) == ["old-1", "staging-1"]
    assert _names(_post(client, {"dropDecommissioned": True})) == ["staging-1"]  # old-1 is Decommissioning
    fleet.remove("staging-1")  # the last one vanishing without a decommission is a drop of 1 of 1
    assert _post(client, {"dropDecommissioned": True}).status_code == 503


def test_503_until_the_applications_are_listed_and_while_their_watch_is_broken(
    make_client: ClientFactory,
) -> None:
    apps = AppsBaseline()
    apps.listed = False
    client = make_client(baseline=apps, max_staleness=30)
    response = _post(client)
    assert response.status_code == 503
    assert response.json()["message"].startswith(
        "the ApplicationSets and Applications of the watched namespaces have not been listed"
    )
    apps.listed, apps.stale = True, 31.0
    assert _post(client).json()["message"].startswith("the Application watch has been broken for 31s")
    apps.stale = 0.0
    assert _post(client).status_code == 200


def test_first_contact_selecting_nothing_is_an_empty_list(client: TestClient) -> None:
    response = _post(client, {"names": ["does-not-exist"]})
    assert response.json() == {"output": {"parameters": []}}


def test_max_drop_percent_100_disables_the_guard(fleet: MemoryFleet, make_client: ClientFactory) -> None:
    client = make_client(max_drop_percent=100)
    _post(client)
    for c in fleet.clusters():
        fleet.remove(c.name)
    assert _names(_post(client)) == []


def test_answers_follow_fleet_changes_and_ignore_probe_only_changes(fleet: MemoryFleet, client: TestClient) -> None:
    first = _post(client).content
    fleet.update("prod-eu-1", nodes_ready=1, message="probe 99", nodes=7)
    assert _post(client).content == first  # no volatile values in the parameters
    fleet.update("prod-eu-1", phase=Phase.UNREACHABLE)
    changed = {p["name"]: p for p in _post(client).json()["output"]["parameters"]}
    assert changed["prod-eu-1"]["lifecycle"]["phase"] == "Unreachable"
    assert changed["prod-eu-1"]["lifecycle"]["syncEnabled"] == "false"


def test_policy_file_overrides_reach_the_answer(fleet: MemoryFleet, make_client: ClientFactory, tmp_path: Path) -> None:
    (tmp_path / "policy.yaml").write_text("Unreachable: {syncEnabled: true}\n")
    client = make_client(policy_file=tmp_path / "policy.yaml")
    edge = _post(client, {"names": ["edge-7"]}).json()["output"]["parameters"][0]
    assert edge["lifecycle"]["syncEnabled"] == "true"
    assert edge["lifecycle"]["prune"] == "false"


def test_clusters_endpoint_lists_the_fleet(client: TestClient) -> None:
    doc = client.get("/api/v1/clusters").json()
    assert doc["synced"] is True
    assert doc["staleSeconds"] == 0
    by_name = {c["name"]: c for c in doc["clusters"]}
    assert list(by_name) == ["edge-7", "new-1", "old-1", "prod-eu-1", "prod-us-1", "staging-1"]
    assert by_name["prod-us-1"] == {
        "name": "prod-us-1",
        "server": "https://prod-us-1.example.test:6443",
        "phase": "Degraded",
        "phaseSince": "2025-03-01T08:30:00Z",
        "message": "2 of 5 nodes NotReady",
        "kubernetesVersion": "1.29.7",
        "nodesKnown": True,
        "nodesUnknown": "",
        "nodes": 5,
        "nodesReady": 3,
        "certificateExpiresAt": "2026-01-15T00:00:00Z",
        "upgradeTo": "",
        "upgradeBlockers": None,
        "upgradeBlocked": "",
    }


def test_fleet_page_is_server_rendered(client: TestClient) -> None:
    response = client.get("/")
    assert response.headers["content-type"].startswith("text/html")
    html = response.text
    for name in ("edge-7", "new-1", "old-1", "prod-eu-1", "prod-us-1", "staging-1"):
        assert f'<tr data-cluster="{name}">' in html
    assert '<span class="phase phase-Unreachable">Unreachable</span>' in html
    assert "3/5" in html


def test_fleet_page_escapes_cluster_data(fleet: MemoryFleet, client: TestClient) -> None:
    fleet.update("edge-7", message="<script>alert(1)</script>")
    assert "<script>alert(1)" not in client.get("/").text


def test_health_metrics_and_openapi(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "synced": True}
    _post(client)
    _post(client, headers={"Authorization": "Bearer wrong"})
    metrics = client.get("/metrics").text
    assert 'argocd_lifecycle_getparams_requests_total{code="200"}' in metrics
    assert 'argocd_lifecycle_getparams_requests_total{code="403"}' in metrics
    assert "argocd_lifecycle_getparams_duration_seconds_bucket" in metrics
    doc = client.get("/openapi.json").json()
    assert doc["paths"]["/api/v1/getparams.execute"]["post"]["operationId"] == "getParams"


@pytest.mark.parametrize("flat", [True, "true"])
def test_flat_list_answer(client: TestClient, flat: object) -> None:
    (only,) = _post(client, {"flatList": flat, "names": ["edge-7", "staging-1"]}).json()["output"]["parameters"]
    assert [c["name"] for c in only["clusters"]] == ["edge-7", "staging-1"]
    assert only["input"]["flatList"] == "true"


def test_unexpected_fleet_failure_is_a_json_500(fleet: MemoryFleet, client: TestClient) -> None:
    def broken() -> list[Any]:
        raise RuntimeError("token=abc inventory exploded")

    fleet.clusters = broken  # type: ignore[method-assign]
    client_no_raise = TestClient(client.app, raise_server_exceptions=False, headers=client.headers)
    response = _post(client_no_raise)
    assert response.status_code == 500
    assert response.json() == {"message": "internal error: RuntimeError", "reason": "internal"}
