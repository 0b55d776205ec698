"""Scenario: drift explained (issue 30). An Application synced by Argo CD; then a PATCH of its Deployment's
replicas and an env value with field manager `kubectl-edit`. Within seconds the Event `DriftDetected` and
one receiver message name the Deployment, both fields, the old and new values and the manager; after the
(test-shortened) break-glass window the compliance alert `on-drift-unreconciled` arrives once; a sync
clears it with one recovery, `on-drift-reconciled`. The timeline shows the episode with its attribution.

The destination is the management cluster through a cluster Secret of its own (the generator reads
destinations with their cluster Secret's credentials, as it probes them; it runs outside a pod here)."""

from __future__ import annotations

import json
import subprocess
import time
from typing import Any

import pytest

from argocd_lifecycle.model import Annotation
from tests.harness import argocd
from tests.harness.loop import APPS, Loop, record
from tests.harness.procs import HarnessError, wait_until
from tests.harness.services import WEBHOOK_SERVICE

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

NAME = "drift-shop"
SECRET = "cluster-drift-mgmt"
UNRECONCILED, RECONCILED = "on-drift-unreconciled", "on-drift-reconciled"
APPS_V1 = "argoproj.io/v1alpha1"


def application(loop: Loop, server: str) -> dict[str, Any]:
    subscribe = {f"notifications.argoproj.io/subscribe.{t}.{WEBHOOK_SERVICE}": "" for t in (UNRECONCILED, RECONCILED)}
    return {
        "apiVersion": APPS_V1, "kind": "Application",
        "metadata": {"name": NAME, "namespace": argocd.NAMESPACE,
                     "annotations": {**subscribe, Annotation.DRIFT_WINDOW: "20s"}},
        "spec": {
            "project": "default",
            "source": {"repoURL": loop.platform.git.url, "path": NAME, "targetRevision": "main"},
            "destination": {"server": server, "namespace": NAME},
            "syncPolicy": {"syncOptions": ["CreateNamespace=true"]},  # no automation: the drift stays
        },
    }  # fmt: skip


def get_app(loop: Loop) -> dict[str, Any]:
    return loop.platform.mgmt.get(APPS_V1, "Application", NAME, argocd.NAMESPACE) or {}


def sync(loop: Loop, by: str) -> None:
    operation = {"initiatedBy": {"username": by}, "sync": {"revision": "main", "syncOptions": ["CreateNamespace=true"]}}
    loop.platform.mgmt.merge_patch(APPS_V1, "Application", NAME, {"operation": operation}, argocd.NAMESPACE)


def synced_by(loop: Loop, by: str) -> dict[str, Any] | None:
    app = get_app(loop)
    status = app.get("status") or {}
    operation = status.get("operationState") or {}
    started_by = ((operation.get("operation") or {}).get("initiatedBy") or {}).get("username", "")
    ok = not app.get("operation") and operation.get("phase") == "Succeeded" and started_by == by
    return app if ok and (status.get("sync") or {}).get("status") == "Synced" else None


def drift_annotations(loop: Loop) -> dict[str, str]:
    ours = (Annotation.DRIFT_SINCE, Annotation.DRIFT_DEADLINE, Annotation.DRIFT_ATTRIBUTION)
    return {k: v for k, v in ((get_app(loop).get("metadata") or {}).get("annotations") or {}).items() if k in ours}


def events(loop: Loop, reason: str) -> list[dict[str, Any]]:
    return [e for e in loop.platform.mgmt.list("v1", "Event", argocd.NAMESPACE)
            if e.get("reason") == reason and (e.get("involvedObject") or {}).get("name") == NAME]  # fmt: skip


def alerts(loop: Loop, trigger: str) -> list[Any]:
    """This Application's drift messages of ``trigger`` (others of the platform may drift meanwhile)."""
    return [m for m in loop.drift_alerts(NAME) if (m.body.get("event") or {}).get("trigger") == trigger]


def text_of(message: Any) -> str:
    return json.dumps(message.body)


def test_drift_is_explained_then_alerted_once_then_recovered_once(loop: Loop, timings: dict[str, float]) -> None:
    platform = loop.platform
    mgmt = platform.management
    platform.mgmt.apply({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": SECRET, "namespace": argocd.NAMESPACE,
                     "labels": {"argocd.argoproj.io/secret-type": "cluster"}},
        "stringData": {"name": "drift-mgmt", "server": mgmt.server, "config": json.dumps(mgmt.argocd_cluster_config())},
    })  # fmt: skip
    platform.git.copy_tree(APPS / "drift", NAME)
    platform.git.commit("drift-shop: a Deployment of three replicas, LOG_LEVEL=info")
    try:
        platform.mgmt.apply(application(loop, mgmt.server))
        sync(loop, "e2e-drift")
        wait_until(lambda: synced_by(loop, "e2e-drift"), timeout=180, what=f"{NAME} to sync")

        # the engineer's kubectl edit
        edited = time.monotonic()
        patch = {"spec": {"replicas": 5, "template": {"spec": {"containers": [
            {"name": "web", "env": [{"name": "LOG_LEVEL", "value": "debug"}]}]}}}}  # fmt: skip
        with mgmt.http() as http:
            resp = http.patch(
                f"/apis/apps/v1/namespaces/{NAME}/deployments/web", params={"fieldManager": "kubectl-edit"},
                json=patch, headers={"Content-Type": "application/strategic-merge-patch+json"},
            )  # fmt: skip
        assert resp.status_code == 200, resp.text[:300]

        detected = wait_until(
            lambda: events(loop, "DriftDetected") or None, timeout=120, what="the DriftDetected Event"
        )
        record(timings, "edit_to_drift_event_s", time.monotonic() - edited)
        message = detected[0]["message"]
        assert "Deployment drift-shop/web" in message, message
        assert "spec.replicas 3 -> 5 by kubectl-edit, Update" in message, message
        assert '.env[name=LOG_LEVEL].value "info" -> "debug" by kubectl-edit, Update' in message, message
        found = drift_annotations(loop)
        assert {Annotation.DRIFT_SINCE, Annotation.DRIFT_DEADLINE} <= found.keys(), found
        assert "spec.replicas 3 -> 5 by kubectl-edit" in found[Annotation.DRIFT_ATTRIBUTION]

        told = wait_until(lambda: alerts(loop, "DriftDetected") or None, timeout=60, what="the receiver's message")
        assert len(told) == 1, [m.body for m in told]
        assert "spec.replicas 3 -> 5 by kubectl-edit" in text_of(told[0]), told[0].body
        assert "info" in text_of(told[0]) and "debug" in text_of(told[0])

        alert = wait_until(lambda: alerts(loop, UNRECONCILED) or None, timeout=180, what=f"the {UNRECONCILED} alert")
        record(timings, "edit_to_unreconciled_alert_s", time.monotonic() - edited)
        body = text_of(alert[0])
        assert "Deployment drift-shop/web" in body and "kubectl-edit" in body and "spec.replicas 3 -> 5" in body, body
        time.sleep(35)  # another reconcile of the Application (app-resync 30s): still one alert
        assert len(alerts(loop, UNRECONCILED)) == 1

        sync(loop, "e2e-drift-heal")  # the change synced back (or committed and synced)
        wait_until(lambda: synced_by(loop, "e2e-drift-heal"), timeout=180, what=f"{NAME} to sync back")
        try:
            wait_until(lambda: not drift_annotations(loop), timeout=60, what="the drift annotations to go")
        except HarnessError as exc:
            status = get_app(loop).get("status") or {}
            seen = {k: status.get(k) for k in ("sync", "resources", "operationState", "history")}
            raise AssertionError(f"{exc}: {drift_annotations(loop)} {json.dumps(seen)[:3000]}") from exc
        wait_until(lambda: events(loop, "DriftResolved") or None, timeout=60, what="the DriftResolved Event")
        wait_until(lambda: alerts(loop, RECONCILED) or None, timeout=180, what=f"the {RECONCILED} recovery")
        time.sleep(35)
        assert len(alerts(loop, RECONCILED)) == 1 and len(alerts(loop, UNRECONCILED)) == 1
        assert len(alerts(loop, "DriftDetected")) == 1

        timeline = subprocess.run(
            [str(platform.binaries.cli), "timeline", NAME, "-n", argocd.NAMESPACE, "-o", "json", "--utc",
             "--kubeconfig", str(mgmt.kubeconfig)],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert timeline.returncode == 0, timeline.stderr
        entries = json.dumps(json.loads(timeline.stdout))
        assert "DriftDetected" in entries and "spec.replicas 3 -> 5 by kubectl-edit" in entries
        assert "DriftResolved" in entries
    finally:
        platform.mgmt.delete(APPS_V1, "Application", NAME, argocd.NAMESPACE)
        platform.mgmt.delete("v1", "Secret", SECRET, argocd.NAMESPACE)
