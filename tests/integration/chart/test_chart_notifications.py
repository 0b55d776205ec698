"""Notifications: only our keys (catalog triggers/templates, our webhook service) reach Argo CD's
ConfigMap, and the apply Job server-side-applies them under its own field manager."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.chart.chartkit import CHART, NAMESPACE, find, one, render, render_error

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
        "metadata": {"name": "argocd-notifications-cm"},  # the Job's --namespace arguments say where
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
        f"--namespace={NAMESPACE}",
        "--namespace=team-a",  # all-enabled: notifications.selfService.namespaces
        "--field-manager=argocd-lifecycle",
    ]
    assert "--force-conflicts" not in container["args"]  # a key someone else owns fails loudly
    volume = next(v for v in job["spec"]["template"]["spec"]["volumes"] if v["name"] == "apply")
    assert volume["configMap"]["name"] == "argocd-lifecycle-notifications-apply"


JOB = "argocd-lifecycle-notifications-apply"
TENANTS = "notifications.selfService.namespaces={team-a,team-b}"
RULES = [
    {
        "apiGroups": [""],
        "resources": ["configmaps"],
        "resourceNames": ["argocd-notifications-cm"],
        "verbs": ["create", "patch"],
    }
]


def rbac(docs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The Job's Roles and RoleBindings by (kind, namespace)."""
    return {
        (d["kind"], d["metadata"]["namespace"]): d
        for d in docs
        if d["kind"] in ("Role", "RoleBinding") and d["metadata"]["name"] == JOB
    }


def test_self_service_namespaces_get_the_same_keys_and_one_role_each() -> None:
    docs = render(sets=("notifications.apply.enabled=true", TENANTS))
    args = one(docs, "Job", JOB)["spec"]["template"]["spec"]["containers"][0]["args"]
    assert [a for a in args if a.startswith("--namespace=")] == [
        f"--namespace={NAMESPACE}",
        "--namespace=team-a",
        "--namespace=team-b",
    ]
    found = rbac(docs)
    assert sorted(found) == sorted((k, ns) for k in ("Role", "RoleBinding") for ns in (NAMESPACE, "team-a", "team-b"))
    for namespace in (NAMESPACE, "team-a", "team-b"):
        assert found[("Role", namespace)]["rules"] == RULES  # that one ConfigMap, nothing else
        binding = found[("RoleBinding", namespace)]
        assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": JOB}
        assert binding["subjects"] == [{"kind": "ServiceAccount", "name": JOB, "namespace": NAMESPACE}]
    assert not [d for d in docs if d["kind"] in ("ClusterRole", "ClusterRoleBinding") and JOB in d["metadata"]["name"]]


def test_tenants_only_leave_the_argocd_namespace_alone() -> None:
    """apply.enabled off (argo-helm owns the central ConfigMap): the Job applies to the tenants only, and
    has no right in the Argo CD namespace."""
    docs = render(sets=(TENANTS,))
    args = one(docs, "Job", JOB)["spec"]["template"]["spec"]["containers"][0]["args"]
    assert [a for a in args if a.startswith("--namespace=")] == ["--namespace=team-a", "--namespace=team-b"]
    assert sorted(rbac(docs)) == sorted((k, ns) for k in ("Role", "RoleBinding") for ns in ("team-a", "team-b"))


def test_no_job_without_a_target() -> None:
    assert not find(render(sets=("notifications.selfService.namespaces=null",)), "Job", JOB)


@pytest.mark.parametrize(
    ("sets", "message"),
    [
        ((f"notifications.selfService.namespaces={{{NAMESPACE}}}",), "is the release's (Argo CD's) namespace"),
        (
            ("notifications.enabled=false", "notifications.selfService.namespaces={team-a}"),
            "needs notifications.enabled",
        ),
        (("notifications.selfService.namespaces={Team-A}",), "Does not match pattern"),  # values.schema.json
    ],
)
def test_bad_self_service_namespaces_are_refused(sets: tuple[str, ...], message: str) -> None:
    assert message in render_error(sets=sets)


def test_a_namespace_with_a_trailing_newline_is_refused(tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(yaml.safe_dump({"notifications": {"selfService": {"namespaces": ["team-a\n"]}}}))
    assert "Does not match pattern" in render_error(values=(str(values),))


@pytest.mark.parametrize(
    ("namespaces", "message"),
    [
        ("{Team-A}", '"Team-A" is not a namespace name (a DNS-1123 label'),
        ("{team.a}", '"team.a" is not a namespace name'),
        ("{kube-system/x}", '"kube-system/x" is not a namespace name'),
        ("{" + "x" * 64 + "}", "is longer than 63 characters"),
        ("{" + ",".join(f"t{i}" for i in range(101)) + "}", "101 namespaces, at most 100"),
    ],
)
def test_the_template_refuses_what_the_schema_would_without_it(tmp_path: Path, namespaces: str, message: str) -> None:
    """helm --skip-schema-validation, or a parent chart's values: the template checks the names itself."""
    copy = tmp_path / "argocd-lifecycle"
    shutil.copytree(CHART, copy)
    (copy / "values.schema.json").unlink()
    assert message in render_error(chart=copy, sets=(f"notifications.selfService.namespaces={namespaces}",))
