"""The HTTP surface: protocol, authentication, limits, errors, safety answers, fleet endpoints."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from argocd_lifecycle.model import Phase

from .conftest import TOKEN, ClientFactory
from .fleet_fixture import MemoryFleet

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
    assert missing.json() == {"message": "missing bearer token (send Authorization: Bearer <token>)"}
    assert missing.headers["www-authenticate"] == "Bearer"
    wrong = client.post(EXECUTE, json={"applicationSetName": "a"}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    assert wrong.json() == {"message": "the bearer token does not match the configured token"}
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
    assert response.json() == {"message": "Method Not Allowed"}
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
    assert wrong.json() == {"message": "input.parameters.labelSelector.matchLabels.env: expected a string, got a list"}


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


def test_mass_drop_is_refused_until_allowed_or_recovered(fleet: MemoryFleet, client: TestClient) -> None:
    params = {"labelSelector": {"matchLabels": {"env": "prod"}}}
    assert len(_names(_post(client, params))) == 4
    removed = [c for c in fleet.clusters() if c.name in ("edge-7", "old-1", "prod-eu-1")]
    for c in removed:
        fleet.remove(c.name)
    refused = _post(client, params)
    assert refused.status_code == 503
    message = refused.json()["message"]
    assert "mass-drop guard: this answer would drop 3 of the 4 clusters" in message
    assert "'guestbook' (75% > --max-drop-percent 50)" in message
    assert _post(client, params).status_code == 503  # a refused answer is not remembered
    # another ApplicationSet asking for the first time gets the honest answer
    assert _names(_post(client, params, appset="other")) == ["prod-us-1"]
    for c in removed[:2]:
        fleet.put(c)
    assert _names(_post(client, params)) == ["edge-7", "old-1", "prod-us-1"]  # 1 of 4 lost: allowed


def test_allow_mass_drop_accepts_and_then_guards_from_the_new_answer(fleet: MemoryFleet, client: TestClient) -> None:
    assert len(_names(_post(client))) == 5
    for name in ("edge-7", "old-1", "prod-eu-1"):
        fleet.remove(name)
    assert _post(client).status_code == 503
    assert _names(_post(client, {"allowMassDrop": True})) == ["prod-us-1", "staging-1"]
    # the guard key ignores allowMassDrop, so the accepted answer is the new baseline
    assert _names(_post(client)) == ["prod-us-1", "staging-1"]


def test_deleted_secrets_and_decommissioned_clusters_leave_without_tripping_the_guard(
    fleet: MemoryFleet, client: TestClient
) -> None:
    assert len(_names(_post(client))) == 5
    for name in ("edge-7", "old-1", "prod-eu-1"):
        fleet.delete_secret(name)  # 3 of 5 gone, on purpose
    assert _names(_post(client)) == ["prod-us-1", "staging-1"]
    fleet.update("staging-1", phase=Phase.DECOMMISSIONING)
    assert _names(_post(client, {"dropDecommissioned": True})) == ["prod-us-1"]
    fleet.remove("prod-us-1")  # the last one vanishing without a deletion is still refused
    assert _post(client, {"dropDecommissioned": True}).status_code == 503


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
    assert response.json() == {"message": "internal error: RuntimeError"}
