"""Self-service notifications (notifications.selfService.namespaces) on a real kube-apiserver: the apply
Job's own argv, as its own ServiceAccount with the Roles the chart renders, writes our keys into the
tenant's argocd-notifications-cm (creating it), leaves the tenant's keys alone, and can do nothing else
in the tenant's namespace; a namespace it may not write stops the run before any ConfigMap is written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.integration.chart.applyjob import apply_as, owned_by, run_container
from tests.integration.chart.chartkit import APPLY_JOB, one, render
from tests.integration.chart.realapi import NAMESPACE, RealApi, status_message

pytestmark = pytest.mark.upstream

CM = "argocd-notifications-cm"
TENANT = "team-a"
ELSEWHERE = "team-b"  # a namespace the Job has no Role in
SETS = (
    "notifications.apply.enabled=true",
    f"notifications.selfService.namespaces={{{TENANT}}}",
    "notifications.webhookService.url=http://receiver.example:8080",  # the webhook service, as with a receiver
)


@pytest.fixture(scope="module")
def job(real_api: RealApi) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Job's container and manifest, its account, Roles and bindings created; no ConfigMap in team-a."""
    docs = [d for d in render(sets=SETS) if d["metadata"]["name"] == APPLY_JOB]
    real_api.apply_all([d for d in docs if d["kind"] in ("ServiceAccount", "Role", "RoleBinding")])
    real_api.admin.delete("v1", "ConfigMap", CM, TENANT)
    (container,) = one(docs, "Job", APPLY_JOB)["spec"]["template"]["spec"]["containers"]
    return container, yaml.safe_load(one(docs, "ConfigMap", APPLY_JOB)["data"]["apply.yaml"])


@pytest.fixture
def account(real_api: RealApi, job: Any) -> Iterator[httpx.Client]:
    with real_api.as_account(APPLY_JOB) as client:
        yield client


def tenant_cm(api: RealApi, namespace: str = TENANT) -> dict[str, Any] | None:
    return api.admin.get("v1", "ConfigMap", CM, namespace)


def test_the_job_creates_the_tenants_configmap_with_only_our_keys(real_api: RealApi, job: Any, tmp_path: Path) -> None:
    container, manifest = job
    assert tenant_cm(real_api) is None
    out = run_container(real_api, container, manifest, tmp_path)
    assert out.returncode == 0, out.stderr
    n = len(manifest["data"])
    central = tenant_cm(real_api, NAMESPACE)
    assert central is not None
    assert out.stdout.splitlines() == [
        f"applied {n} keys to ConfigMap {NAMESPACE}/{CM} (field manager argocd-lifecycle; "
        f"it holds {len(central['data'])} keys)",
        f"applied {n} keys to ConfigMap {TENANT}/{CM} (field manager argocd-lifecycle; it holds {n} keys)",
    ]
    created = tenant_cm(real_api)
    assert created is not None and created["data"] == manifest["data"]
    assert owned_by(created, "argocd-lifecycle") == set(manifest["data"])
    service = yaml.safe_load(created["data"]["service.webhook.argocd-lifecycle"])
    assert {"name": "Authorization", "value": "Bearer $argocd-lifecycle-token"} in service["headers"]


def test_the_tenants_own_keys_stay_theirs(real_api: RealApi, job: Any, tmp_path: Path) -> None:
    container, manifest = job
    assert run_container(real_api, container, manifest, tmp_path).returncode == 0
    theirs = {"service.slack": "token: $slack-token\n", "subscriptions": "- recipients: [slack:team-a]\n"}
    assert apply_as(real_api, "team-a-gitops", theirs, force=False, namespace=TENANT) == 200
    again = run_container(real_api, container, manifest, tmp_path)
    assert again.returncode == 0, again.stderr
    live = tenant_cm(real_api)
    assert live is not None and {k: live["data"][k] for k in theirs} == theirs
    assert owned_by(live, "team-a-gitops") == set(theirs)
    assert owned_by(live, "argocd-lifecycle") == set(manifest["data"])


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", f"/api/v1/namespaces/{TENANT}/configmaps", None),  # list: every ConfigMap's data
        ("GET", f"/api/v1/namespaces/{TENANT}/configmaps/team-config", None),
        ("GET", f"/api/v1/namespaces/{TENANT}/configmaps/{CM}", None),  # the apply needs no read
        ("POST", f"/api/v1/namespaces/{TENANT}/configmaps", {"metadata": {"name": "planted"}, "data": {"a": "b"}}),
        ("POST", f"/api/v1/namespaces/{TENANT}/configmaps", {"metadata": {"name": CM}, "data": {"a": "b"}}),
        ("DELETE", f"/api/v1/namespaces/{TENANT}/configmaps/{CM}", None),
        ("PUT", f"/api/v1/namespaces/{TENANT}/configmaps/{CM}", {"metadata": {"name": CM}, "data": {}}),
        ("GET", f"/api/v1/namespaces/{TENANT}/secrets/argocd-notifications-secret", None),
        ("GET", f"/api/v1/namespaces/{ELSEWHERE}/configmaps/{CM}", None),
    ],
)
def test_the_jobs_account_can_do_nothing_else_in_the_tenants_namespace(
    real_api: RealApi, account: httpx.Client, method: str, path: str, body: dict[str, Any] | None
) -> None:
    real_api.admin.apply(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "team-config", "namespace": TENANT}}
    )
    resp = account.request(method, path, json=body)
    assert resp.status_code == 403, (resp.status_code, status_message(resp))


def test_creating_the_missing_configmap_needs_the_create_verb(real_api: RealApi, job: Any, tmp_path: Path) -> None:
    """Why the Role says `create`: with `patch` alone (and `get`) the API server refuses the apply that would
    create the ConfigMap ("cannot create resource"), the rehearsal first; `create` limited to the name
    suffices (the test above), and a POST, even of that name, stays refused (the test above too)."""
    container, manifest = job
    namespace = "team-c"
    real_api.admin.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    rendered = {d["kind"]: d for d in render(sets=SETS) if d["metadata"].get("namespace") == TENANT}
    role, binding = (
        {**rendered[kind], "metadata": {**rendered[kind]["metadata"], "namespace": namespace}}
        for kind in ("Role", "RoleBinding")
    )
    role["rules"] = [{**role["rules"][0], "verbs": ["get", "patch"]}]
    real_api.apply_all([role, binding])
    single = {**container, "args": [a for a in container["args"] if not a.startswith("--namespace=")]}
    out = run_container(real_api, single, manifest, tmp_path, f"--namespace={namespace}")
    assert out.returncode == 1 and "HTTP 403" in out.stderr and "cannot create resource" in out.stderr, out.stderr
    assert tenant_cm(real_api, namespace) is None


def test_server_side_apply_of_another_configmap_is_refused(real_api: RealApi, job: Any, tmp_path: Path) -> None:
    """The Role's `patch` on one name is what lets the apply create that ConfigMap: any other name is
    refused, existing or not, and nothing is created."""
    container, manifest = job
    for name in ("team-config", "planted"):
        other = {**manifest, "metadata": {"name": name}}
        out = run_container(real_api, container, other, tmp_path)
        assert out.returncode == 1 and "HTTP 403" in out.stderr and "Traceback" not in out.stderr
        assert f"ConfigMap {NAMESPACE}/{name}" in out.stderr  # the rehearsal's first namespace
    assert real_api.admin.get("v1", "ConfigMap", "planted", TENANT) is None
    assert not set(manifest["data"]) & set(
        (real_api.admin.get("v1", "ConfigMap", "team-config", TENANT) or {}).get("data") or {}
    )


def test_a_namespace_without_a_role_stops_the_run_before_any_write(real_api: RealApi, job: Any, tmp_path: Path) -> None:
    container, manifest = job
    assert run_container(real_api, container, manifest, tmp_path).returncode == 0
    before = versions(real_api)
    fewer = {**manifest, "data": dict(sorted(manifest["data"].items())[1:])}  # a write would change both
    out = run_container(real_api, container, fewer, tmp_path, f"--namespace={ELSEWHERE}")
    assert out.returncode == 1 and out.stdout == ""
    what = f"apply {len(fewer['data'])} keys to ConfigMap {ELSEWHERE}/{CM} as argocd-lifecycle"
    assert out.stderr.startswith(f"error: {what} (dry run: nothing applied): HTTP 403"), out.stderr
    assert versions(real_api) == before


def versions(api: RealApi) -> dict[str, str]:
    """The resourceVersion of the Argo CD namespace's and the tenant's argocd-notifications-cm."""
    out = {}
    for namespace in (NAMESPACE, TENANT):
        found = tenant_cm(api, namespace)
        assert found is not None
        out[namespace] = found["metadata"]["resourceVersion"]
    return out
