"""Scenarios 1-4 of the end-to-end tier: one downstream cluster through its whole life, on real upstream
components. The cluster Secret names an exec credential plugin (as a managed cluster's does), which the
generator's prober and Argo CD's controllers both run.

The tests run in file order on one session-wide loop (each step starts where the previous one left the
cluster). Every wait has an explicit timeout; measured delays go to test-artifacts/e2e/timings.json.
"""

from __future__ import annotations

import base64
import json
import subprocess
import time

import pytest
import yaml

from tests.harness import paths
from tests.harness.loop import (
    APP_NAMESPACE,
    APP_PATH,
    APPS,
    CLUSTER_NAME,
    KEPT,
    REWRITTEN,
    Loop,
    annotations,
    automated_enabled,
    cluster_phase_of,
    last_applied,
    parse_time,
    record,
    synced,
)
from tests.harness.services import EXEC_PLUGIN

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

SETTLE = 15  # seconds to keep watching the sink for a duplicate after the expected message arrived


def test_1_registered_cluster_gets_its_application_after_the_readiness_gate(
    loop: Loop, timings: dict[str, float]
) -> None:
    assert loop.application() is None
    started = time.monotonic()
    since, early = loop.pass_gate(timeout=120)
    assert not early, f"the Application existed while the cluster was {early[0]}"
    app = loop.wait_app(lambda a: True, timeout=60, what="to be created by the ApplicationSet")
    created = parse_time(app["metadata"]["creationTimestamp"])
    record(timings, "register_to_ready_s", time.monotonic() - started)
    record(timings, "gate_to_application_s", (created - parse_time(since)).total_seconds())
    # requeueAfterSeconds is 1800: an Application this early came from the generator's refresh annotation
    assert created >= parse_time(since)
    assert cluster_phase_of(app) == "Ready"
    assert app["spec"]["destination"]["server"] == loop.platform.downstream.server
    env = {e["name"]: e["value"] for e in app["spec"]["source"]["plugin"]["env"]}
    assert env["CLUSTER_NAME"] == CLUSTER_NAME and env["CLUSTER_PHASE"] == "Ready"
    assert automated_enabled(app) is True
    # the cluster is reached only through its exec credential plugin (its Secret holds no client key)
    config = json.loads(base64.b64decode(loop.secret()["data"]["config"]))  # type: ignore[index]
    assert config["execProviderConfig"]["command"].endswith(EXEC_PLUGIN) and "keyData" not in config["tlsClientConfig"]
    assert (loop.platform.scratch / "exec-plugins" / "runs.log").read_text().count("run") >= 1


def test_2_legacy_manifests_render_through_the_cmp_and_sync(loop: Loop, timings: dict[str, float]) -> None:
    started = time.monotonic()
    app = loop.wait_app(synced, timeout=240, what="to sync")
    record(timings, "application_sync_s", time.monotonic() - started)
    assert {(r["kind"], r["name"]) for r in app["status"]["resources"]} == {
        (kind, name) for _, kind, name in [*REWRITTEN, *KEPT]
    }
    for (api_version, kind, name), legacy in REWRITTEN.items():
        obj = loop.live(api_version, kind, name)
        assert obj is not None, f"{kind}/{name} missing on the downstream cluster"
        assert annotations(obj)["argocd-lifecycle.io/rewritten-from"] == legacy
        assert last_applied(obj)["apiVersion"] == api_version  # what Argo CD sent, not just served
    deployment = loop.live("apps/v1", "Deployment", "web")
    assert deployment is not None
    assert "replicas" not in last_applied(deployment)["spec"]  # the HPA owns it

    # the same server rejects the repository's manifests as written: those APIs are gone
    with loop.platform.downstream.http() as http:
        for path in sorted((APPS / APP_PATH).glob("[!.]*.yaml")):
            doc = yaml.safe_load(path.read_text())
            key = next((k for k, v in REWRITTEN.items() if v == doc["apiVersion"] and k[1] == doc["kind"]), None)
            if key is None:
                continue
            plural = loop.platform.down.resource(key[0], key[1]).name
            url = f"/apis/{doc['apiVersion']}/namespaces/{APP_NAMESPACE}/{plural}/{doc['metadata']['name']}"
            response = http.patch(
                url, content=json.dumps(doc), params={"fieldManager": "e2e"},
                headers={"Content-Type": "application/apply-patch+yaml"},
            )  # fmt: skip
            assert response.status_code == 404, f"{path.name}: {response.status_code} {response.text[:200]}"
            assert http.get(f"/apis/{doc['apiVersion']}").status_code == 404


def test_2b_timeline_rebuilds_the_sync_and_health_story_live(loop: Loop) -> None:
    """The timeline, live: `timeline` against the management API shows scenario 1-2 in order."""
    result = subprocess.run(
        [str(paths.REPO / ".venv" / "bin" / "argocd-lifecycle"), "timeline", loop.app_name, "--namespace", "argocd",
         "--kubeconfig", str(loop.platform.management.kubeconfig), "--since", "1h", "-o", "json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    entries = json.loads(result.stdout)["entries"]
    offsets = [e["offsetSeconds"] for e in entries]
    assert offsets == sorted(offsets)
    story = [(e["lane"], e["reason"], e["message"]) for e in entries]

    def first(lane: str, text: str) -> int:
        return next(i for i, (ln, _, m) in enumerate(story) if ln == lane and text in m)

    ready = next(i for i, (ln, reason, _) in enumerate(story) if ln == "Cluster" and reason == "ClusterReady")
    started = first("Operation", "Initiated automated sync")
    synced_at = first("Sync", "OutOfSync -> Synced")
    health = first("Health", "Missing -> Progressing")
    completed = next(
        i for i, (ln, reason, _) in enumerate(story) if ln == "Operation" and reason == "OperationCompleted"
    )
    assert ready < started < completed, story
    assert started < synced_at and started < health, story


def test_3_unreachable_cluster_keeps_its_application_with_sync_off_and_one_alert(
    loop: Loop, timings: dict[str, float]
) -> None:
    seen = len(loop.alerts())
    started = time.monotonic()
    app = loop.lose_cluster(timeout=90)
    record(timings, "sigterm_to_unreachable_s", loop.marks["phase Unreachable"] - started)
    record(timings, "sigterm_to_sync_off_s", time.monotonic() - started)
    assert app["metadata"].get("deletionTimestamp") is None  # kept, not deleted

    alert = loop.next_alert(seen, timeout=120, what="the outage alert at the sink")
    record(timings, "sigterm_to_alert_s", alert.received - started)
    time.sleep(SETTLE)
    assert len(loop.alerts()) == seen + 1, [m.body for m in loop.alerts()[seen:]]
    # the catalog names the cluster by the Application's destination (here its server URL)
    assert alert.body["cluster"] in (CLUSTER_NAME, loop.platform.downstream.server), alert.body
    assert alert.body["kind"] == "collapsed" and loop.app_name in alert.body["text"], alert.body
    notified = annotations(loop.application() or {}).get("notified.notifications.argoproj.io", "")
    assert ":on-cluster-unreachable:[" in notified  # Argo CD's controller fired the catalog trigger
    assert any((m.body.get("event") or {}).get("reason") == "ClusterUnreachable" for m in loop.lifecycle_messages())


def test_4_recovered_cluster_turns_sync_back_on_with_one_recovery_message(
    loop: Loop, timings: dict[str, float]
) -> None:
    seen = len(loop.alerts())
    started = time.monotonic()
    loop.restore_cluster(timeout=120)
    ready = loop.marks["acted"]  # the downstream kube-apiserver answers /readyz again
    record(timings, "apiserver_restart_s", ready - started)  # includes reaping the stopped one
    record(timings, "restarted_to_ready_s", loop.marks["phase Ready"] - ready)
    record(timings, "restarted_to_sync_on_s", time.monotonic() - ready)
    alert = loop.next_alert(seen, timeout=120, what="the recovery message at the sink")
    record(timings, "restarted_to_recovery_message_s", alert.received - ready)
    time.sleep(SETTLE)
    assert len(loop.alerts()) == seen + 1, [m.body for m in loop.alerts()[seen:]]
    assert (alert.body.get("event") or {}).get("trigger") == "on-cluster-recovered", alert.body
    assert any((m.body.get("event") or {}).get("reason") == "ClusterRecovered" for m in loop.lifecycle_messages())
