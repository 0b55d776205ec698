"""The delivery scenarios (storms, duplicates, silences, outages, replicas) against
`argocd-lifecycle receiver serve` and real loopback sinks."""

from __future__ import annotations

import json
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tests.integration.notifications.receiver.conftest import ADMIN_TOKEN, ARGOCD_URL, SECRETS, wait_until

ALERT = {
    "trigger": "on-sync-failed",
    "severity": "warning",
    "app": "shop",
    "namespace": "argocd",
    "project": "default",
    "cluster": "edge-7",
    "clusterPhase": "Ready",
    "revision": "4f6c2e1d",
    "syncStatus": "OutOfSync",
    "health": "Degraded",
    "message": "sync failed: one or more objects failed to apply",
}


UNREACHABLE = {
    "reason": "ClusterUnreachable",
    "cluster": "edge-7",
    "server": "https://edge-7.example:6443",
    "phase": "Unreachable",
    "previousPhase": "Ready",
    "since": "2026-01-01T00:00:00Z",
    "message": "3 probes failed: connection refused",
    "kubernetesVersion": "1.29.3",
}


def alert(**changes: Any) -> dict[str, Any]:
    return {**ALERT, **changes}


def test_duplicate_storm_inside_the_window_is_one_delivery(start_receiver, sinks) -> None:
    receiver = start_receiver()
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: receiver.argocd(ALERT).json()["status"], range(100)))
    assert Counter(answers) == {"queued": 1, "duplicate": 99}
    receiver.settled()
    bodies = sinks["slack"].bodies()
    assert len(bodies) == 1
    assert bodies[0]["blocks"][0]["text"]["text"] == "[warning] shop on edge-7: on-sync-failed"
    assert sinks["slack"].errors == []


def test_critical_alert_reaches_slack_dingtalk_and_teams_in_their_formats(start_receiver, sinks) -> None:
    receiver = start_receiver()
    assert receiver.argocd(alert(severity="critical")).json()["receivers"] == ["ops-dingtalk", "ops-teams", "ops-slack"]
    receiver.settled()
    for name in ("slack", "dingtalk", "teams"):
        assert sinks[name].errors == [], name
        assert len(sinks[name].received) == 1, name
    markdown = sinks["dingtalk"].bodies()[0]["markdown"]["text"]
    assert "[Open](https://argocd.example/applications/argocd/shop)" in markdown
    blocks = sinks["teams"].bodies()[0]["attachments"][0]["content"]["body"]
    facts = [[run["text"] for run in block["inlines"]] for block in blocks[2:]]
    assert ["Health: ", "Degraded"] in facts


def test_what_a_sender_may_not_say_never_reaches_a_chat(start_receiver, sinks) -> None:
    """Attacks through the running receiver: a lifecycle event signed with the external secret, an Argo
    CD body claiming its cluster Unreachable, markdown links and images in its text, and its own
    "Open" URL. Only the signed lifecycle source speaks for a cluster; sender text is text."""
    receiver = start_receiver()
    raw, headers = receiver.signed("/v1/events/lifecycle", UNREACHABLE, secret=SECRETS["/v1/events/external"])
    refused = receiver.http.post("/v1/events/lifecycle", content=raw, headers=headers)
    assert (refused.status_code, refused.json()["reason"]) == (403, "wrong_secret")
    link = "[Acknowledge](https://evil.example/ack) ![](https://evil.example/pixel.png)"
    spoof = alert(severity="critical", clusterPhase="Unreachable", message=link, argocdUrl="https://evil.example")
    assert receiver.argocd(spoof).json()["status"] == "queued"  # not collapsed: no storm was opened
    assert receiver.argocd(alert(app="cart", severity="critical")).json()["status"] == "queued"
    receiver.settled()
    bodies = {name: sinks[name].bodies() for name in ("slack", "dingtalk", "teams")}
    assert all(len(b) == 2 for b in bodies.values()) and all(not sinks[n].errors for n in bodies)
    everything = json.dumps(bodies)
    assert "is Unreachable" not in everything
    assert '"https://evil.example' not in everything  # no button, action or field value is the sender's URL
    markdown = bodies["dingtalk"][0]["markdown"]["text"]
    assert "\\[Acknowledge\\]\\(https://evil.example/ack\\) \\!\\[\\]\\(https://evil.example/pixel.png\\)" in markdown
    assert markdown.endswith(f"[Open]({ARGOCD_URL}/applications/argocd/shop)")
    runs = [r["text"] for b in bodies["teams"][0]["attachments"][0]["content"]["body"] for r in b["inlines"]]
    assert link in runs and "Phase reported by Argo CD: " in runs
    assert (
        bodies["teams"][0]["attachments"][0]["content"]["actions"][0]["url"] == f"{ARGOCD_URL}/applications/argocd/shop"
    )
    button = bodies["slack"][0]["blocks"][-1]["elements"][0]
    assert button["url"] == f"{ARGOCD_URL}/applications/argocd/shop"


def test_cluster_unreachable_with_200_app_alerts_is_one_collapsed_message(start_receiver, sinks) -> None:
    receiver = start_receiver()
    assert receiver.lifecycle(UNREACHABLE).status_code == 202
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda n: receiver.argocd(alert(app=f"app-{n:03d}")).json()["status"], range(200)))
    assert set(answers) == {"collapsed"}
    receiver.settled()
    titles = [b["blocks"][0]["text"]["text"] for b in sinks["slack"].bodies()]
    assert titles == [
        "[critical] Cluster edge-7: ClusterUnreachable",
        "[critical] Cluster edge-7 is Unreachable: 200 application alerts collapsed",
    ]
    # The lifecycle event is critical: DingTalk and Teams got it, signed and formatted.
    assert len(sinks["dingtalk"].received) == 1 and sinks["dingtalk"].errors == []
    assert sinks["slack"].errors == []


def test_silence_created_through_the_api_suppresses_and_expires(start_receiver, sinks) -> None:
    receiver = start_receiver()
    auth = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    silence = receiver.http.post(
        "/v1/silences",
        json={"matchers": {"app": ["shop"], "cluster": ["edge-7"]}, "duration": "2s", "comment": "deploy window"},
        headers=auth,
    )
    assert silence.status_code == 201
    assert receiver.argocd(alert(revision="r1")).json()["status"] == "silenced"
    assert receiver.argocd(alert(app="cart")).json()["status"] == "queued"
    wait_until(lambda: receiver.http.get("/v1/silences", headers=auth).json()["silences"] == [], what="expiry")
    assert receiver.argocd(alert(revision="r2")).json()["status"] == "queued"
    receiver.settled()
    apps = [b["blocks"][0]["text"]["text"].split(" ")[1] for b in sinks["slack"].bodies()]
    assert apps == ["cart", "shop"]


def test_wrong_token_bad_signature_stale_and_replay_are_refused_and_deliver_nothing(start_receiver, sinks) -> None:
    receiver = start_receiver()
    lifecycle = {"reason": "ClusterReady", "cluster": "edge-7", "phase": "Ready", "since": "2026-01-01T00:00:00Z"}
    assert receiver.argocd(ALERT, token="wrong").status_code == 403
    raw, headers = receiver.signed("/v1/events/lifecycle", lifecycle, secret=b"wrong")
    assert receiver.http.post("/v1/events/lifecycle", content=raw, headers=headers).status_code == 401
    raw, headers = receiver.signed("/v1/events/lifecycle", lifecycle, at=time.time() - 600)
    assert receiver.http.post("/v1/events/lifecycle", content=raw, headers=headers).status_code == 401
    raw, headers = receiver.signed("/v1/events/lifecycle", lifecycle)
    assert receiver.http.post("/v1/events/lifecycle", content=raw, headers=headers).status_code == 202
    replay = receiver.http.post("/v1/events/lifecycle", content=raw, headers=headers)
    assert replay.status_code == 401
    outbox = receiver.settled()
    assert outbox["counts"]["delivered"] == 1  # only the one good request
    assert len(sinks["slack"].received) == 1
    metrics = receiver.http.get("/metrics").text
    for reason in ("wrong_token", "signature_mismatch", "signature_stale", "replay"):
        assert f'argocd_lifecycle_receiver_events_rejected_total{{reason="{reason}"}} 1.0' in metrics


def test_sink_down_for_a_while_delivers_after_recovery_in_order(start_receiver, sinks) -> None:
    receiver = start_receiver()
    sinks["webhook"].down = True
    for n in range(5):
        assert receiver.argocd(alert(app=f"app-{n}", project="audited")).json()["receivers"] == ["audit"]

    def failures() -> float:
        for line in receiver.http.get("/metrics").text.splitlines():
            if line.startswith('argocd_lifecycle_receiver_delivery_failures_total{receiver="audit"'):
                return float(line.split()[-1])
        return 0.0

    wait_until(lambda: failures() >= 3, what="three failed attempts")
    assert receiver.outbox()["pending"][0]["lastError"] == 'webhook answered 503: {"error": "down for maintenance"}'
    sinks["webhook"].down = False
    receiver.settled()
    assert [b["event"]["app"] for b in sinks["webhook"].bodies()] == [f"app-{n}" for n in range(5)]
    assert sinks["webhook"].errors == []


def test_a_deleted_webhook_dead_letters_and_shows_in_the_outbox(start_receiver, sinks) -> None:
    receiver = start_receiver()
    sinks["teams"].gone = True
    assert receiver.argocd(alert(severity="critical")).status_code == 202
    outbox = receiver.settled()
    [dead] = outbox["deadLetter"]
    assert (dead["receiver"], dead["attempts"]) == ("ops-teams", 1)
    assert dead["lastError"] == 'teams answered 404: {"error": "no_service"}'
    assert outbox["counts"] == {"pending": 0, "delivered": 2, "dead": 1}  # Slack and DingTalk got theirs
    metrics = receiver.http.get("/metrics").text
    assert 'argocd_lifecycle_receiver_dead_lettered_total{receiver="ops-teams"} 1.0' in metrics
    assert 'argocd_lifecycle_receiver_outbox_depth{state="dead"} 1.0' in metrics


def test_kill_9_during_delivery_loses_nothing_and_repeats_only_by_key(start_receiver, sinks) -> None:
    receiver = start_receiver()
    webhook = sinks["webhook"]
    webhook.delay = 3.0  # a slow destination: the receiver is killed while it waits for the answer
    for n in range(5):
        assert receiver.argocd(alert(app=f"app-{n}", project="audited")).status_code == 202
    wait_until(lambda: webhook.received, what="the first delivery to arrive")
    receiver.kill9()
    webhook.delay = 0.0
    restarted = start_receiver()
    restarted.settled()
    keys = Counter(r.headers["idempotency-key"] for r in webhook.received)
    apps = {r.json()["event"]["app"] for r in webhook.received}
    assert apps == {f"app-{n}" for n in range(5)}  # every accepted event delivered
    assert len(keys) == 5  # one idempotency key per message
    assert sorted(keys.values()) == [1, 1, 1, 1, 2]  # the one in flight was sent again, with its key
    assert webhook.errors == []


def test_redis_state_is_shared_by_two_replicas(start_receiver, sinks, redis_url) -> None:
    first, second = start_receiver(state=redis_url), start_receiver(state=redis_url)
    assert first.argocd(alert(revision="shared")).json()["status"] == "queued"
    assert second.argocd(alert(revision="shared")).json()["status"] == "duplicate"
    silence = second.http.post(
        "/v1/silences",
        json={"matchers": {"app": ["muted"]}, "duration": "1h"},
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
    )
    assert silence.status_code == 201
    assert first.argocd(alert(app="muted")).json()["status"] == "silenced"
    first.settled()
    second.settled()
    assert len(sinks["slack"].received) == 1
    # Both replicas deliver from the shared outbox: each message once, in the order accepted.
    for n in range(12):
        assert (first, second)[n % 2].argocd(alert(app=f"app-{n:02d}")).json()["status"] == "queued"
    first.settled()
    apps = [b["blocks"][0]["text"]["text"].split(" ")[1] for b in sinks["slack"].bodies()[1:]]
    assert apps == [f"app-{n:02d}" for n in range(12)]
    assert sinks["slack"].errors == []
