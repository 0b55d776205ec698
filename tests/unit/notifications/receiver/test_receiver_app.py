"""The HTTP API in-process (Starlette's TestClient runs the real app, lifespan included)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from argocd_lifecycle.notifications.receiver.app import Receiver, build_app
from argocd_lifecycle.notifications.receiver.config import ReceiverConfig
from argocd_lifecycle.notifications.receiver.sqlite_state import SqliteState
from argocd_lifecycle.signing import sign
from tests.unit.notifications.receiver.conftest import HMAC_SECRET, TOKEN, Clock

AUTH = {"Authorization": f"Bearer {TOKEN}"}
ALERT = {"trigger": "on-sync-failed", "app": "shop", "cluster": "edge-7", "revision": "abc"}
LIFECYCLE = {
    "reason": "ClusterUnreachable",
    "cluster": "edge-7",
    "phase": "Unreachable",
    "since": "2026-01-01T00:00:00Z",
}


@pytest.fixture
def client(basic_config: ReceiverConfig, tmp_path: Path, clock: Clock) -> Iterator[TestClient]:
    receiver = Receiver(basic_config, SqliteState.open(str(tmp_path / "state.db")), clock=clock)
    with TestClient(build_app(receiver), base_url="http://127.0.0.1") as test_client:
        yield test_client


def signed(body: dict, now: float, secret: bytes = HMAC_SECRET) -> tuple[bytes, dict[str, str]]:
    raw = json.dumps(body).encode()
    return raw, {"Content-Type": "application/json", **sign(secret, raw, now)}


def outbox(client: TestClient) -> dict:
    response = client.get("/v1/outbox", headers=AUTH)
    assert response.status_code == 200
    return response.json()


def test_bearer_token_is_required(client: TestClient) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Basic {TOKEN}"}):
        response = client.post("/v1/events/argocd", json=ALERT, headers=headers)
        assert response.status_code == 401
        assert response.json() == {"error": "missing or wrong bearer token"}
    assert outbox(client)["counts"]["pending"] == 0
    assert 'argocd_lifecycle_receiver_events_rejected_total{reason="token"} 3.0' in client.get("/metrics").text


def test_argocd_event_is_queued_and_a_repeat_deduplicated(client: TestClient) -> None:
    first = client.post("/v1/events/argocd", json=ALERT, headers=AUTH)
    assert first.status_code == 202
    assert first.json()["status"] == "queued" and first.json()["receivers"] == ["ops-slack"]
    again = client.post("/v1/events/argocd", json=ALERT, headers=AUTH)
    assert again.json()["status"] == "duplicate"
    pending = outbox(client)["pending"]
    assert [p["receiver"] for p in pending] == ["ops-slack"]
    assert pending[0]["title"] == "[warning] shop on edge-7: on-sync-failed"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "body is not valid JSON"),
        (b"[1, 2]", "body must be a JSON object"),
        (json.dumps({**ALERT, "severity": 3}).encode(), "field 'severity' must be a string, got int"),
        (json.dumps({"app": "shop"}).encode(), "missing required field(s): trigger"),
    ],
)
def test_bad_bodies_are_400_with_a_reason(client: TestClient, body: bytes, message: str) -> None:
    response = client.post("/v1/events/argocd", content=body, headers=AUTH)
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_unknown_fields_are_kept(client: TestClient) -> None:
    response = client.post("/v1/events/argocd", json={**ALERT, "team": "payments"}, headers=AUTH)
    assert response.status_code == 202


def test_bodies_over_one_mebibyte_are_413(client: TestClient) -> None:
    big = json.dumps({**ALERT, "pad": "x" * (1024 * 1024)}).encode()
    assert client.post("/v1/events/argocd", content=big, headers=AUTH).status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit holds while streaming too
        for _ in range(17):
            yield b" " * 65536

    assert client.post("/v1/events/argocd", content=chunks(), headers=AUTH).status_code == 413


def test_signed_lifecycle_event_then_replay_is_refused(client: TestClient, clock: Clock) -> None:
    raw, headers = signed(LIFECYCLE, clock())
    first = client.post("/v1/events/lifecycle", content=raw, headers=headers)
    assert first.status_code == 202 and first.json()["receivers"] == ["ops-dingtalk", "ops-slack"]
    replay = client.post("/v1/events/lifecycle", content=raw, headers=headers)
    assert replay.status_code == 401 and replay.json() == {"error": "this signature was already used"}
    assert outbox(client)["counts"]["pending"] == 2


def test_bad_signatures_are_401_and_nothing_is_queued(client: TestClient, clock: Clock) -> None:
    raw, good = signed(LIFECYCLE, clock())
    _, wrong_secret = signed(LIFECYCLE, clock(), b"not-the-secret")
    stale_raw, stale = signed(LIFECYCLE, clock() - 301)
    attempts = [
        (raw, {}),
        (raw, wrong_secret),
        (raw + b" ", good),
        (stale_raw, stale),
    ]
    for body, headers in attempts:
        response = client.post("/v1/events/lifecycle", content=body, headers=headers)
        assert response.status_code == 401, response.text
    assert outbox(client)["counts"]["pending"] == 0
    metrics = client.get("/metrics").text
    for reason in ("missing", "mismatch", "stale"):
        assert f'reason="signature_{reason}"' in metrics


def test_external_events_are_signed_too(client: TestClient, clock: Clock) -> None:
    body = {"trigger": "backup-failed", "severity": "critical", "cluster": "edge-7", "labels": {"team": "db"}}
    raw, headers = signed(body, clock())
    assert client.post("/v1/events/external", content=raw, headers=headers).status_code == 202
    raw, headers = signed({**body, "labels": {"team": 1}}, clock() + 1)
    assert client.post("/v1/events/external", content=raw, headers=headers).status_code == 400


def test_silence_lifecycle_through_the_api(client: TestClient, clock: Clock) -> None:
    request = {"matchers": {"app": ["shop"], "cluster": ["edge-7"]}, "duration": "2h", "comment": "maintenance"}
    assert client.post("/v1/silences", json=request).status_code == 401
    created = client.post("/v1/silences", json=request, headers=AUTH)
    assert created.status_code == 201
    silence = created.json()
    assert silence["matchers"] == {"app": ["shop"], "cluster": ["edge-7"]} and silence["id"]
    listed = client.get("/v1/silences", headers=AUTH).json()["silences"]
    assert [s["id"] for s in listed] == [silence["id"]]
    assert client.post("/v1/events/argocd", json=ALERT, headers=AUTH).json()["status"] == "silenced"
    assert client.delete(f"/v1/silences/{silence['id']}", headers=AUTH).status_code == 204
    assert client.delete(f"/v1/silences/{silence['id']}", headers=AUTH).status_code == 404
    assert client.post("/v1/events/argocd", json=ALERT, headers=AUTH).json()["status"] == "queued"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"matchers": {"app": ["shop"]}}, "exactly one of"),
        ({"matchers": {}, "duration": "2h"}, "'matchers' must be a non-empty object"),
        ({"matchers": {"colour": ["red"]}, "duration": "2h"}, "unknown key 'colour'"),
        ({"matchers": {"app": "shop"}, "duration": "2h"}, "matchers.app must be a non-empty list"),
        ({"matchers": {"app": ["shop"]}, "duration": "soon"}, "is not a duration"),
        ({"matchers": {"app": ["shop"]}, "expiresAt": "2001-01-01T00:00:00Z"}, "already be expired"),
        ({"matchers": {"app": ["shop"]}, "expiresAt": "2030-01-01T00:00:00"}, "has no time zone"),
    ],
)
def test_bad_silences_are_400(client: TestClient, body: dict, message: str) -> None:
    response = client.post("/v1/silences", json=body, headers=AUTH)
    assert response.status_code == 400
    assert message in response.json()["error"]


def test_health_metrics_openapi(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    client.post("/v1/events/argocd", json=ALERT, headers=AUTH)
    metrics = client.get("/metrics").text
    assert 'argocd_lifecycle_receiver_events_received_total{source="argocd"} 1.0' in metrics
    assert 'argocd_lifecycle_receiver_outbox_depth{state="pending"}' in metrics
    spec = client.get("/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    assert {"/v1/events/argocd", "/v1/events/lifecycle", "/v1/silences", "/v1/outbox"} <= set(spec["paths"])
    assert "delete" in spec["paths"]["/v1/silences/{silence_id}"]


def test_outbox_limit_is_checked(client: TestClient) -> None:
    assert client.get("/v1/outbox?limit=0", headers=AUTH).status_code == 400
    assert client.get("/v1/outbox?limit=abc", headers=AUTH).status_code == 400
