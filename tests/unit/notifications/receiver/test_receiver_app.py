"""The HTTP API in-process (Starlette's TestClient runs the real app, lifespan included): the routes,
the two bearer roles, the error shape. Attacks over real sockets: tests/integration/notifications/receiver."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from argocd_lifecycle.notifications.receiver.app import Receiver, build_app
from argocd_lifecycle.notifications.receiver.config import ReceiverConfig
from argocd_lifecycle.notifications.receiver.config import load as load_config
from argocd_lifecycle.notifications.receiver.sqlite_state import SqliteState
from argocd_lifecycle.signing import sign
from tests.unit.notifications.receiver.conftest import (
    ADMIN_TOKEN,
    BASIC,
    EXTERNAL_SECRET,
    LIFECYCLE_SECRET,
    TOKEN,
    Clock,
    write_config,
)

AUTH = {"Authorization": f"Bearer {TOKEN}"}
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
ALERT = {"trigger": "on-sync-failed", "app": "shop", "cluster": "edge-7", "revision": "abc"}
LIFECYCLE = {
    "reason": "ClusterUnreachable",
    "cluster": "edge-7",
    "phase": "Unreachable",
    "since": "2026-01-01T00:00:00Z",
}


@pytest.fixture
def receiver(basic_config: ReceiverConfig, tmp_path: Path, clock: Clock) -> Receiver:
    return Receiver(basic_config, SqliteState.open(str(tmp_path / "state.db")), clock=clock)


@pytest.fixture
def client(receiver: Receiver) -> Iterator[TestClient]:
    with TestClient(build_app(receiver), base_url="http://127.0.0.1") as test_client:
        yield test_client


def signed(body: dict, now: float, secret: bytes = LIFECYCLE_SECRET) -> tuple[bytes, dict[str, str]]:
    raw = json.dumps(body).encode()
    return raw, {"Content-Type": "application/json", **sign(secret, raw, now)}


def outbox(client: TestClient) -> dict:
    response = client.get("/v1/outbox", headers=ADMIN)
    assert response.status_code == 200
    return response.json()


def test_the_ingest_token_is_required_on_the_argocd_route(client: TestClient) -> None:
    missing = client.post("/v1/events/argocd", json=ALERT)
    assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
    assert missing.json() == {
        "message": "missing bearer token (send Authorization: Bearer <token>)",
        "reason": "missing_token",
    }
    assert client.post("/v1/events/argocd", json=ALERT, headers={"Authorization": f"Basic {TOKEN}"}).status_code == 401
    wrong = client.post("/v1/events/argocd", json=ALERT, headers={"Authorization": "Bearer wrong"})
    assert wrong.status_code == 403
    assert wrong.json() == {"message": "the bearer token does not match the configured token", "reason": "wrong_token"}
    admin = client.post("/v1/events/argocd", json=ALERT, headers=ADMIN)
    assert admin.status_code == 403 and admin.json()["reason"] == "wrong_role"
    assert outbox(client)["counts"]["pending"] == 0
    metrics = client.get("/metrics").text
    for reason, count in (("missing_token", 2), ("wrong_token", 1), ("wrong_role", 1)):
        assert f'argocd_lifecycle_receiver_events_rejected_total{{reason="{reason}"}} {count}.0' in metrics


def _admin_requests(receiver: Receiver) -> list[tuple[str, str]]:
    """Every administration route of the endpoint table, with its path parameters filled in."""
    routes = [(e.method, e.path) for e in receiver.endpoints() if e.role == "admin"]
    assert len(routes) >= 5  # silences (list, create, delete), the outbox and replays
    return [(m, p.replace("{silence_id}", "s-1").replace("{item_id}", "i-1")) for m, p in routes]


def test_the_ingest_token_gets_403_on_every_admin_route(client: TestClient, receiver: Receiver) -> None:
    for method, path in _admin_requests(receiver):
        body = {"matchers": {"app": ["shop"]}, "duration": "2h"} if method == "POST" else None
        response = client.request(method, path, json=body, headers=AUTH)
        assert response.status_code == 403, (method, path)
        assert response.json() == {
            "message": "this is the ingest token; the admin routes need the admin token",
            "reason": "wrong_role",
        }
        assert client.request(method, path, json=body).status_code == 401
    assert client.get("/v1/silences", headers=ADMIN).json() == {"silences": []}  # nothing was created


def test_without_an_admin_token_the_admin_routes_are_off(tmp_path: Path, clock: Clock) -> None:
    config = write_config(tmp_path, BASIC.replace("admin: {tokenFile: admin-token}\n", ""))
    from argocd_lifecycle.notifications.receiver.config import load

    receiver = Receiver(load(config), SqliteState.open(str(tmp_path / "state.db")), clock=clock)
    with TestClient(build_app(receiver), base_url="http://127.0.0.1") as client:
        for method, path in _admin_requests(receiver):
            for headers in (AUTH, ADMIN, {}):
                response = client.request(method, path, headers=headers)
                assert response.status_code == 403, (method, path)
                assert response.json()["reason"] == "disabled"
        assert client.post("/v1/events/argocd", json=ALERT, headers=AUTH).status_code == 202


def test_a_rotated_token_is_used_without_a_restart(client: TestClient, tmp_path: Path) -> None:
    new = tmp_path / "admin-token.new"
    new.write_text("rotated-admin-token")
    new.replace(tmp_path / "admin-token")
    assert client.get("/v1/silences", headers=ADMIN).status_code == 403
    assert client.get("/v1/silences", headers={"Authorization": "Bearer rotated-admin-token"}).status_code == 200


DEEP = b'{"trigger": "x", "app": "shop", "pad": ' + b"[" * 5000 + b"]" * 5000 + b"}"


def test_deeply_nested_json_is_400_on_every_body_route(client: TestClient, clock: Clock) -> None:
    expected = {"message": "request body: JSON nested deeper than 32 levels", "reason": "too_deep"}
    for path, headers in (("/v1/events/argocd", AUTH), ("/v1/silences", ADMIN)):
        response = client.post(path, content=DEEP, headers=headers)
        assert response.status_code == 400 and response.json() == expected
    # signed routes read the body before the signature can be checked: depth is refused first
    for path in ("/v1/events/lifecycle", "/v1/events/external"):
        response = client.post(path, content=DEEP, headers={"Content-Type": "application/json"})
        assert response.status_code == 400 and response.json() == expected
        _, headers = signed({**LIFECYCLE, "x": [[[]]]}, clock())
        assert client.post(path, content=DEEP, headers=headers).status_code == 400
    assert outbox(client)["counts"]["pending"] == 0


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
        (b"{not json", "request body: not valid JSON (Expecting property name"),
        (b"[1, 2]", "body must be a JSON object"),
        (json.dumps({**ALERT, "severity": 3}).encode(), "field 'severity' must be a string, got int"),
        (json.dumps({"app": "shop"}).encode(), "missing required field(s): trigger"),
    ],
)
def test_bad_bodies_are_400_with_a_reason(client: TestClient, body: bytes, message: str) -> None:
    response = client.post("/v1/events/argocd", content=body, headers=AUTH)
    assert response.status_code == 400
    assert message in response.json()["message"]


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
    assert replay.status_code == 401
    assert replay.json() == {"message": "this signature was already used", "reason": "replay"}
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


def test_external_events_are_signed_with_the_external_secret(client: TestClient, clock: Clock) -> None:
    body = {"trigger": "backup-failed", "severity": "critical", "cluster": "edge-7", "labels": {"team": "db"}}
    raw, headers = signed(body, clock(), EXTERNAL_SECRET)
    assert client.post("/v1/events/external", content=raw, headers=headers).status_code == 202
    raw, headers = signed({**body, "labels": {"team": 1}}, clock() + 1, EXTERNAL_SECRET)
    assert client.post("/v1/events/external", content=raw, headers=headers).status_code == 400


def test_a_lifecycle_event_signed_with_the_external_secret_is_refused(client: TestClient, clock: Clock) -> None:
    """Attack: one secret signed both routes, so any external sender could page "Cluster edge-7 is
    Unreachable" and open (or end) a storm. Each secret is accepted on its own route only."""
    raw, headers = signed(LIFECYCLE, clock(), EXTERNAL_SECRET)
    forged = client.post("/v1/events/lifecycle", content=raw, headers=headers)
    assert forged.status_code == 403
    assert forged.json() == {
        "message": "signed with the external secret; /v1/events/lifecycle takes only the lifecycle secret",
        "reason": "wrong_secret",
    }
    raw, headers = signed({"trigger": "x", "cluster": "edge-7"}, clock(), LIFECYCLE_SECRET)
    other_way = client.post("/v1/events/external", content=raw, headers=headers)
    assert other_way.status_code == 403 and other_way.json()["reason"] == "wrong_secret"
    assert outbox(client)["counts"]["pending"] == 0
    # the forged Unreachable set no phase: an app alert of that cluster is told, not collapsed
    assert client.post("/v1/events/argocd", json=ALERT, headers=AUTH).json()["status"] == "queued"
    assert 'argocd_lifecycle_receiver_events_rejected_total{reason="wrong_secret"} 2.0' in client.get("/metrics").text


def test_without_an_external_secret_the_external_route_is_off(tmp_path: Path, clock: Clock) -> None:
    config = BASIC.replace(", externalSecretFile: external-hmac", "")
    assert config != BASIC
    receiver = Receiver(load_config(write_config(tmp_path, config)), SqliteState.open(str(tmp_path / "s.db")), clock)
    with TestClient(build_app(receiver), base_url="http://127.0.0.1") as client:
        raw, headers = signed({"trigger": "x"}, clock(), EXTERNAL_SECRET)
        off = client.post("/v1/events/external", content=raw, headers=headers)
        assert off.status_code == 403
        assert off.json() == {
            "message": "/v1/events/external is off: no inbound.externalSecretFile is configured",
            "reason": "disabled",
        }
        raw, headers = signed(LIFECYCLE, clock())
        assert client.post("/v1/events/lifecycle", content=raw, headers=headers).status_code == 202


def test_silence_lifecycle_through_the_api(client: TestClient, clock: Clock) -> None:
    request = {"matchers": {"app": ["shop"], "cluster": ["edge-7"]}, "duration": "2h", "comment": "maintenance"}
    assert client.post("/v1/silences", json=request).status_code == 401
    created = client.post("/v1/silences", json=request, headers=ADMIN)
    assert created.status_code == 201
    silence = created.json()
    assert silence["matchers"] == {"app": ["shop"], "cluster": ["edge-7"]} and silence["id"]
    listed = client.get("/v1/silences", headers=ADMIN).json()["silences"]
    assert [s["id"] for s in listed] == [silence["id"]]
    assert client.post("/v1/events/argocd", json=ALERT, headers=AUTH).json()["status"] == "silenced"
    assert client.delete(f"/v1/silences/{silence['id']}", headers=ADMIN).status_code == 204
    assert client.delete(f"/v1/silences/{silence['id']}", headers=ADMIN).status_code == 404
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
    response = client.post("/v1/silences", json=body, headers=ADMIN)
    assert response.status_code == 400
    assert message in response.json()["message"]


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
    # the layer adds the shared refusals: 401/403 for a role, 400/408/413 for a body
    argocd = spec["paths"]["/v1/events/argocd"]["post"]
    assert argocd["security"] == [{"bearer": []}]
    assert {"202", "400", "401", "403", "408", "413"} <= set(argocd["responses"])
    assert "security" not in spec["paths"]["/v1/events/lifecycle"]["post"]
    assert spec["components"]["schemas"]["Error"]["required"] == ["message", "reason"]


def test_outbox_limit_is_checked(client: TestClient) -> None:
    assert client.get("/v1/outbox?limit=0", headers=ADMIN).status_code == 400
    assert client.get("/v1/outbox?limit=abc", headers=ADMIN).status_code == 400


async def _kill(store: SqliteState, item_id: str, clock: Clock) -> None:
    await store.dead(item_id, 12, "HTTP 410 gone", clock())


def test_a_dead_letter_is_replayed_with_the_admin_token(client: TestClient, receiver: Receiver, clock: Clock) -> None:
    assert client.post("/v1/events/argocd", json=ALERT, headers=AUTH).status_code == 202
    (item,) = outbox(client)["pending"]
    client.portal.call(_kill, receiver.store, item["id"], clock)  # type: ignore[union-attr]
    assert [d["id"] for d in outbox(client)["deadLetter"]] == [item["id"]]
    path = f"/v1/outbox/{item['id']}/replay"
    assert client.post(path, headers=AUTH).status_code == 403
    replayed = client.post(path, headers=ADMIN)
    assert replayed.status_code == 202 and replayed.json() == {"id": item["id"], "state": "pending"}
    after = outbox(client)
    assert after["deadLetter"] == [] and [p["id"] for p in after["pending"]] == [item["id"]]
    assert after["pending"][0]["attempts"] == 0 and after["pending"][0]["lastError"] == ""
    again = client.post(path, headers=ADMIN)  # only a dead letter can be replayed
    assert again.status_code == 404 and again.json()["reason"] == "not_found"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"trigger": "t", "app": "a", "message": "x\\ud800"}', "field 'message' is not valid Unicode"),
        (b'{"trigger": "t", "app": "a", "severity": "critical] Cluster prod: ClusterUnreachable ["}', "'severity'"),
    ],
)
def test_text_no_service_can_take_and_free_text_severities_are_400(
    client: TestClient, body: bytes, message: str
) -> None:
    """A lone surrogate escape failed every delivery of the alert (no service can be sent it), and a
    free-text severity, the first word of a title, let a sender write the title."""
    answer = client.post("/v1/events/argocd", content=body, headers={**AUTH, "Content-Type": "application/json"})
    assert answer.status_code == 400 and message in answer.json()["message"]
    assert outbox(client)["counts"]["pending"] == 0
