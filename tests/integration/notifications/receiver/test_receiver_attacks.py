"""`argocd-lifecycle receiver serve` as a process, attacked over real sockets: idle and slow connections are
cut off, deep JSON is 400 (before the signature check on signed routes), 300 idle sockets under a
256-descriptor limit leave /healthz and /metrics answering, the ingest token gets 403 on every
administration route of the live OpenAPI document, and the SQLite state is private on disk."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.integration.core import http_attacks as attacks
from tests.integration.notifications.receiver.conftest import ADMIN_TOKEN, CLI, TOKEN, receiver_config

INGEST = {"Authorization": f"Bearer {TOKEN}"}
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
ALERT = {"trigger": "on-sync-failed", "severity": "warning", "app": "shop", "cluster": "edge-7", "revision": "r1"}
FLAGS = tuple(attacks.SERVER_FLAGS)


def test_idle_connections_are_closed_after_the_idle_timeout(start_receiver) -> None:
    attacks.assert_idle_connections_are_closed(start_receiver(flags=FLAGS).port)


def test_a_request_head_sent_byte_by_byte_is_cut_off(start_receiver) -> None:
    attacks.assert_a_slow_head_is_cut_off(start_receiver(flags=FLAGS).port)


@pytest.mark.parametrize(("path", "headers"), [("/v1/events/argocd", INGEST), ("/v1/events/lifecycle", {})])
def test_a_body_sent_at_one_byte_per_second_is_cut_off(start_receiver, path: str, headers: dict[str, str]) -> None:
    receiver = start_receiver(flags=FLAGS)
    attacks.assert_a_one_byte_per_second_body_is_cut_off(receiver.port, path, headers)
    assert receiver.outbox()["counts"]["pending"] == 0


def test_an_oversized_request_head_is_431(start_receiver) -> None:
    attacks.assert_an_oversized_head_is_431(start_receiver().port)


def test_deeply_nested_json_is_400_before_auth_on_signed_routes(start_receiver) -> None:
    receiver = start_receiver()
    attacks.assert_deep_json_is_400(receiver.url, "/v1/events/argocd", INGEST)
    attacks.assert_deep_json_is_400(receiver.url, "/v1/silences", ADMIN)
    for path in ("/v1/events/lifecycle", "/v1/events/external"):  # no signature at all: still 400, not 401
        attacks.assert_deep_json_is_400(receiver.url, path, {})
    assert receiver.outbox()["counts"]["pending"] == 0


def test_300_idle_sockets_under_256_descriptors_leave_health_and_metrics_answering(start_receiver) -> None:
    receiver = start_receiver(flags=("--idle-timeout", "60"), wrap=lambda argv: attacks.with_nofile(256, argv))
    assert receiver.proc is not None
    attacks.assert_health_answers_under_idle_sockets(receiver.port, receiver.proc.pid, ["/healthz", "/metrics"])
    assert receiver.argocd(ALERT).status_code == 202  # and it still takes events


def _bearer_operations(url: str) -> list[tuple[str, str]]:
    """Every operation of the live document that needs a bearer token, path parameters filled in."""
    document = httpx.get(url + "/openapi.json").json()
    found = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if operation.get("security"):
                found.append((method.upper(), path.replace("{silence_id}", "s").replace("{item_id}", "i")))
    return found


def test_the_ingest_token_gets_403_on_every_admin_route(start_receiver) -> None:
    receiver = start_receiver()
    operations = _bearer_operations(receiver.url)
    admin = [op for op in operations if op != ("POST", "/v1/events/argocd")]
    assert {path for _, path in admin} == {"/v1/silences", "/v1/silences/s", "/v1/outbox", "/v1/outbox/i/replay"}
    silence = {"matchers": {"severity": ["critical"]}, "duration": "360d"}
    for method, path in admin:
        body = json.dumps(silence).encode() if method == "POST" else None
        response = receiver.http.request(method, path, content=body, headers=INGEST)
        assert response.status_code == 403, (method, path, response.text)
        assert response.json() == {
            "message": "this is the ingest token; the admin routes need the admin token",
            "reason": "wrong_role",
        }
        assert receiver.http.request(method, path, content=body, headers=ADMIN).status_code in (200, 201, 204, 404)
    # the admin token in turn is no ingest token
    assert receiver.http.post("/v1/events/argocd", json=ALERT, headers=ADMIN).status_code == 403


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_sqlite_state_is_private_on_disk(start_receiver, tmp_path: Path) -> None:
    folder = tmp_path / "state"
    receiver = start_receiver(state=f"sqlite:///{folder}/receiver.db")
    assert receiver.argocd(ALERT).status_code == 202
    files = [folder / "receiver.db", folder / "receiver.db-wal", folder / "receiver.db-shm"]
    assert _mode(folder) == 0o700
    assert {f.name: _mode(f) for f in files} == {f.name: 0o600 for f in files}


def test_a_state_folder_others_may_write_is_refused(tmp_path: Path, sinks) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    config = receiver_config(tmp_path, sinks)
    result = subprocess.run(
        [str(CLI), "receiver", "serve", "--config", str(config), "--state", f"sqlite:///{shared}/state.db"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == (
        f"error: sqlite state folder {shared} may be written by group or others (mode 0777): "
        f"use a private folder (chmod 0700 {shared}, or a path in a new folder)\n"
    )
    assert list(shared.iterdir()) == []
