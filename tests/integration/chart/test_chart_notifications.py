"""Notifications: only our keys (catalog triggers/templates, our webhook service) reach Argo CD's
ConfigMap, and the apply Job server-side-applies them under its own field manager."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from tests.integration.chart.chartkit import CHART, NAMESPACE, find, one, render

pytestmark = pytest.mark.upstream

CATALOG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "argocd-notifications-cm"},
    "data": {
        "trigger.on-cluster-unreachable": "- when: 'true'\n  send: [cluster-unreachable]\n",
        "template.cluster-unreachable": "message: down\n",
        "service.slack": "token: $slack-token\n",  # not ours: must never be applied
        "context": "argocdUrl: https://elsewhere\n",  # not ours either
    },
}


def chart_with_catalog(tmp_path: Path) -> Path:
    copy = tmp_path / "argocd-lifecycle"
    shutil.copytree(CHART, copy)
    (copy / "files" / "notifications-cm.yaml").write_text(yaml.safe_dump(CATALOG))
    return copy


def test_only_our_keys_and_the_receiver_webhook(tmp_path: Path) -> None:
    docs = render(chart=chart_with_catalog(tmp_path), values=("all-enabled-values.yaml",))
    data = one(docs, "ConfigMap", "argocd-lifecycle-notifications")["data"]
    assert sorted(data) == [
        "service.webhook.argocd-lifecycle",
        "template.cluster-unreachable",
        "trigger.on-cluster-unreachable",
    ]
    assert data["template.cluster-unreachable"] == CATALOG["data"]["template.cluster-unreachable"]
    service = yaml.safe_load(data["service.webhook.argocd-lifecycle"])
    assert service == {
        "url": f"http://argocd-lifecycle-receiver.{NAMESPACE}.svc:8080",
        "headers": [
            {"name": "Content-Type", "value": "application/json"},
            {"name": "Authorization", "value": "Bearer $argocd-lifecycle-token"},
        ],
    }
    applied = yaml.safe_load(one(docs, "ConfigMap", "argocd-lifecycle-notifications-apply")["data"]["apply.yaml"])
    assert applied == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "argocd-notifications-cm", "namespace": NAMESPACE},
        "data": data,
    }


def test_no_webhook_service_without_a_receiver(tmp_path: Path) -> None:
    docs = render(chart=chart_with_catalog(tmp_path))
    data = one(docs, "ConfigMap", "argocd-lifecycle-notifications")["data"]
    assert "service.webhook.argocd-lifecycle" not in data
    docs = render(
        chart=chart_with_catalog(tmp_path / "url"), sets=("notifications.webhookService.url=https://hooks.example/in",)
    )
    data = one(docs, "ConfigMap", "argocd-lifecycle-notifications")["data"]
    assert yaml.safe_load(data["service.webhook.argocd-lifecycle"])["url"] == "https://hooks.example/in"


def test_apply_job_is_off_by_default_and_a_hook_when_on() -> None:
    assert not find(render(), "Job", "argocd-lifecycle-notifications-apply")
    docs = render(values=("all-enabled-values.yaml",))
    job = one(docs, "Job", "argocd-lifecycle-notifications-apply")
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "post-install,post-upgrade"
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert "command" not in container  # the image's entrypoint: argocd-lifecycle
    assert container["args"] == [
        "notifications",
        "apply",
        "--filename=/etc/argocd-lifecycle/notifications/apply.yaml",
        "--field-manager=argocd-lifecycle",
    ]
    assert "--force-conflicts" not in container["args"]  # a key someone else owns fails loudly
    volume = next(v for v in job["spec"]["template"]["spec"]["volumes"] if v["name"] == "apply")
    assert volume["configMap"]["name"] == "argocd-lifecycle-notifications-apply"
