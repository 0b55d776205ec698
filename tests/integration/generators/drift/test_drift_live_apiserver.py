"""Drift on a real kube-apiserver: a Deployment written as Argo CD writes it, then edited with field
manager `kubectl-edit` (replicas and an env value) and scaled through the `scale` subresource. The real
managedFields are attributed by `drift APP` live (the destination read with the cluster Secret's
credentials, as the prober reads it), and by the real `generator serve`, run with the chart's arguments as
its ServiceAccount under the chart's Role and admission policy: the Application's annotations, Events
DriftDetected and DriftResolved, nothing refused."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.app.cli import main
from argocd_lifecycle.model import Annotation
from argocd_lifecycle.times import format_rfc3339
from tests.harness.platform import register_node
from tests.harness.procs import Supervisor, free_port, wait_until
from tests.integration.chart.realapi import NAMESPACE, RealApi, status_message
from tests.integration.chart.test_chart_generator_least_privilege import ACCOUNT, LEASE, chart_args

pytestmark = pytest.mark.upstream

APP_NS = "shop"
DEPLOYMENTS = f"/apis/apps/v1/namespaces/{APP_NS}/deployments"
REVISION = "9f2c41d7e0b8a6c5d4e3f2a1b0c9d8e7f6a5b4c3"


def _deployment(replicas: int, level: str) -> dict[str, Any]:
    container = {
        "name": "web",
        "image": "registry.example/shop/web:1.4.2",
        "env": [{"name": "LOG_LEVEL", "value": level}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": APP_NS, "labels": {"app.kubernetes.io/instance": "shop"}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [container]}},
        },
    }


def _as_argocd_applies(api: RealApi) -> None:
    """What Argo CD's client-side apply leaves: the object with its last-applied configuration, written
    by the field manager argocd-controller."""
    manifest = _deployment(3, "info")
    obj = json.loads(json.dumps(manifest))
    obj["metadata"]["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": json.dumps(manifest)}
    with api.cluster.http() as http:
        http.post("/api/v1/namespaces", json={"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": APP_NS}})
        http.delete(f"{DEPLOYMENTS}/web")
        resp = http.post(DEPLOYMENTS, params={"fieldManager": "argocd-controller"}, json=obj)
        assert resp.status_code == 201, status_message(resp)


def _someone_edits(api: RealApi) -> None:
    with api.cluster.http() as http:
        patch = {"spec": {"template": {"spec": {"containers": [{"name": "web", "env": [
            {"name": "LOG_LEVEL", "value": "debug"}]}]}}}}  # fmt: skip
        resp = http.patch(f"{DEPLOYMENTS}/web", params={"fieldManager": "kubectl-edit"}, json=patch,
                          headers={"Content-Type": "application/strategic-merge-patch+json"})  # fmt: skip
        assert resp.status_code == 200, status_message(resp)
        resp = http.patch(
            f"{DEPLOYMENTS}/web/scale",
            params={"fieldManager": "kubectl-edit"},
            json={"spec": {"replicas": 5}},
            headers={"Content-Type": "application/merge-patch+json"},
        )
        assert resp.status_code == 200, status_message(resp)


def _application(api: RealApi, synced_at: str, status: str = "OutOfSync") -> dict[str, Any]:
    resources = [
        {"group": "apps", "version": "v1", "kind": "Deployment", "namespace": APP_NS, "name": "web", "status": status},
        {"version": "v1", "kind": "ConfigMap", "namespace": APP_NS, "name": "absent", "status": status},
    ]
    return {
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": "shop", "namespace": NAMESPACE},
        "spec": {"project": "default", "source": {"repoURL": "https://git.example.test/shop", "path": "deploy"},
                 "destination": {"server": api.cluster.server, "namespace": APP_NS}},
        "status": {"sync": {"status": status, "revision": REVISION}, "resources": resources,
                   "operationState": {"operation": {"sync": {"revision": REVISION}},
                                      "phase": "Succeeded", "startedAt": synced_at, "finishedAt": synced_at,
                                      "syncResult": {"revision": REVISION}}},
    }  # fmt: skip


def _story(api: RealApi) -> None:
    api.apply_cluster_self()
    _as_argocd_applies(api)
    synced_at = format_rfc3339(time.time())
    time.sleep(1.1)  # managedFields keep seconds: the edit is after the sync finished
    _someone_edits(api)
    api.admin.apply(_application(api, synced_at), namespace=NAMESPACE)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code: object = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return (int(code) if isinstance(code, int) else 1), out.out, out.err


def test_drift_live_attributes_the_real_managed_fields(chart_api: RealApi, capsys: pytest.CaptureFixture[str]) -> None:
    _story(chart_api)
    live = ("--kubeconfig", str(chart_api.cluster.kubeconfig), "-n", NAMESPACE)
    code, out, err = run(capsys, "drift", "shop", *live)
    assert code == 2, err
    # the API server records no time for a write through the scale subresource
    assert "spec.replicas 3 -> 5 by kubectl-edit, Update /scale, time not recorded\n" in out
    assert (
        'spec.template.spec.containers[name=web].env[name=LOG_LEVEL].value "info" -> "debug" by kubectl-edit, Update, '
        in out
    )
    assert "ConfigMap shop/absent\n  not attributed: not found in the cluster\n" in out
    assert "argocd-controller" not in out and "kube-controller-manager" not in out
    code, out, _ = run(capsys, "drift", "shop", *live, "-o", "json")
    doc = json.loads(out)
    assert {c["manager"] for c in doc["objects"][0]["changes"]} == {"kubectl-edit"}


def test_the_generator_publishes_the_episode_as_its_account(chart_api: RealApi, tmp_path: Path) -> None:
    api, admin = chart_api, chart_api.admin
    admin.delete("coordination.k8s.io/v1", "Lease", LEASE, NAMESPACE)
    register_node(api.cluster.api_client(), "node-a")
    _story(api)
    token_file = tmp_path / "token"
    token_file.write_text("plugin-token-for-the-test")
    sup = Supervisor(tmp_path / "logs")
    # not in a pod: no implicit in-cluster entry (it needs the pod's KUBERNETES_SERVICE_* environment)
    argv = [a for a in chart_args(token_file, api.kubeconfig_for(ACCOUNT), free_port()) if a != "--in-cluster"]
    proc = sup.start("generator", argv)
    try:

        def annotations() -> dict[str, str]:
            proc.check_alive()
            app = admin.get("argoproj.io/v1alpha1", "Application", "shop", NAMESPACE) or {}
            return {k: v for k, v in (app["metadata"].get("annotations") or {}).items() if "drift" in k}

        def events(reason: str) -> list[dict[str, Any]]:
            return [e for e in admin.list("v1", "Event", NAMESPACE)
                    if e["reason"] == reason and e["involvedObject"]["name"] == "shop"]  # fmt: skip

        wait_until(lambda: Annotation.DRIFT_SINCE in annotations(), timeout=90, what="the drift episode published")
        found = annotations()
        assert "spec.replicas 3 -> 5 by kubectl-edit, Update /scale" in found[Annotation.DRIFT_ATTRIBUTION]
        assert '.env[name=LOG_LEVEL].value "info" -> "debug" by kubectl-edit' in found[Annotation.DRIFT_ATTRIBUTION]
        wait_until(lambda: events("DriftDetected"), timeout=30, what="DriftDetected")
        (event,) = events("DriftDetected")
        assert event["type"] == "Warning" and event["involvedObject"]["kind"] == "Application"
        assert "spec.replicas 3 -> 5 by kubectl-edit" in event["message"]
        assert "Break-glass window until " in event["message"]

        synced = _application(api, format_rfc3339(time.time()), status="Synced")  # healed, or committed
        admin.merge_patch("argoproj.io/v1alpha1", "Application", "shop", {"status": synced["status"]}, NAMESPACE)
        wait_until(lambda: not annotations(), timeout=30, what="the drift annotations to go")
        wait_until(lambda: events("DriftResolved"), timeout=30, what="DriftResolved")
        assert len(events("DriftDetected")) == 1
    finally:
        sup.stop_all()
    log = proc.log_path.read_text()
    assert not re.search(r"\b403\b|[Ff]orbidden|denied|ValidatingAdmissionPolicy", log), log[-3000:]
