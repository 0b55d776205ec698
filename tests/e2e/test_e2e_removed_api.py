"""Scenario 6 of the end-to-end tier: a sync that fails on a removed API is announced with the object named."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.harness import argocd
from tests.harness.loop import APPS, Loop, record
from tests.harness.procs import wait_until
from tests.harness.services import WEBHOOK_SERVICE

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

NAME = "removed-api"
TRIGGER = "on-sync-failed-removed-api"


def application(loop: Loop) -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {
            "name": NAME, "namespace": argocd.NAMESPACE,
            "annotations": {f"notifications.argoproj.io/subscribe.{TRIGGER}.{WEBHOOK_SERVICE}": ""},
        },
        "spec": {
            "project": "default",
            "source": {
                "repoURL": loop.platform.git.url, "path": NAME, "targetRevision": "main",
                "plugin": {"name": "argocd-lifecycle-v1", "parameters": [{"name": "rewriteApis", "string": "false"}]},
            },
            "destination": {"server": "https://kubernetes.default.svc", "namespace": NAME},
            # Argo CD retries an automated sync 5 times by default (phase Running, ~2.5 min of backoff)
            # before it says Failed, which is when the trigger fires; no retries keeps the test short
            "syncPolicy": {"automated": {}, "syncOptions": ["CreateNamespace=true"], "retry": {"limit": 0}},
        },
    }  # fmt: skip


def failed(loop: Loop) -> dict[str, Any] | None:
    app = loop.platform.mgmt.get("argoproj.io/v1alpha1", "Application", NAME, argocd.NAMESPACE) or {}
    operation = (app.get("status") or {}).get("operationState") or {}
    return app if operation.get("phase") in ("Failed", "Error") else None


def test_6_sync_failed_on_removed_api_is_announced_naming_the_object(loop: Loop, timings: dict[str, float]) -> None:
    loop.platform.git.copy_tree(APPS / NAME, NAME)
    loop.platform.git.commit("removed-api: a PodDisruptionBudget still on policy/v1beta1")
    started = time.monotonic()
    loop.platform.mgmt.apply(application(loop))

    app = wait_until(lambda: failed(loop), timeout=180, what=f"Application {NAME}'s sync to fail")
    message = app["status"]["operationState"].get("message", "")
    results = app["status"]["operationState"].get("syncResult", {}).get("resources", [])
    assert any(r["kind"] == "PodDisruptionBudget" and r.get("status") == "SyncFailed" for r in results) or (
        "PodDisruptionBudget" in message
    ), app["status"]["operationState"]

    def announced() -> Any:
        return [m for m in loop.alerts() if (m.body.get("event") or {}).get("trigger") == TRIGGER] or None

    alerts = wait_until(announced, timeout=120, what=f"the {TRIGGER} alert at the sink")
    record(timings, "apply_to_removed_api_alert_s", alerts[0].received - started)
    assert len(alerts) == 1, [m.body for m in alerts]
    text = f"{alerts[0].body.get('title', '')} {alerts[0].body.get('text', '')}"
    assert "PodDisruptionBudget" in text and "web" in text, alerts[0].body
    assert alerts[0].body["event"]["app"] == NAME
