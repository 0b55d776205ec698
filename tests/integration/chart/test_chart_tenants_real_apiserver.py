"""Tenants' namespaces (generator.applicationNamespaces), enforced by the real kube-apiserver: the Role the
chart renders in team-a lets the generator read ApplicationSets and Applications there, ask an
ApplicationSet to refresh and record Events about it; never read a Secret or create anything else, and
the admission policy still narrows the ApplicationSet patch to the refresh annotation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.harness.procs import wait_until
from tests.integration.chart.chartkit import render
from tests.integration.chart.realapi import RealApi, status_message

pytestmark = pytest.mark.upstream

GENERATOR = "argocd-lifecycle-generator"
POLICY = "argocd-lifecycle-generator.argocd"
TENANT = "team-a"
MERGE = {"Content-Type": "application/merge-patch+json"}
BASE = f"/apis/argoproj.io/v1alpha1/namespaces/{TENANT}"
EVENTS = f"/api/v1/namespaces/{TENANT}/events"


def _event(name: str, kind: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": TENANT},
        "involvedObject": {"kind": kind, "name": "web", "namespace": TENANT},
        "reason": "MassDropHeld", "message": "held", "type": "Warning", "count": 1,
        "source": {"component": "argocd-lifecycle"},
    }  # fmt: skip


@pytest.fixture(scope="module")
def generator(real_api: RealApi) -> Iterator[httpx.Client]:
    real_api.admin.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": TENANT}})
    docs = render(sets=(f"generator.applicationNamespaces={{{TENANT}}}",))
    wanted = {"Role", "RoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
    real_api.apply_all([d for d in docs if d["kind"] in wanted])
    real_api.admin.apply({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
        "metadata": {"name": "web", "namespace": TENANT},
        "spec": {"generators": [], "template": {"metadata": {"name": "x"}, "spec": {
            "project": TENANT, "destination": {"server": "https://a.example", "namespace": "web"},
            "source": {"repoURL": "https://git.example/apps", "path": "web"}}}},
    })  # fmt: skip
    real_api.admin.apply(
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "team-secret", "namespace": TENANT}}
    )
    with real_api.as_account(GENERATOR) as client:

        def enforced() -> bool:  # RBAC and the policy both in force for the tenant's namespace
            resp = client.post(EVENTS, params={"dryRun": "All"}, json=_event("probe", "Secret"))
            return resp.status_code == 403 and POLICY in status_message(resp)

        wait_until(enforced, timeout=60, what="the tenant's Role and the admission policy to be in force")
        yield client


def test_the_tenants_appsets_and_applications_are_listed_and_watched(generator: httpx.Client) -> None:
    for plural in ("applicationsets", "applications"):
        assert generator.get(f"{BASE}/{plural}").status_code == 200
        assert generator.get(f"{BASE}/{plural}", params={"watch": "1", "timeoutSeconds": "1"}).status_code == 200


def test_the_refresh_passes_and_nothing_else_on_the_tenants_appset(generator: httpx.Client) -> None:
    refresh = {"metadata": {"annotations": {"argocd.argoproj.io/application-set-refresh": "true"}}}
    resp = generator.patch(f"{BASE}/applicationsets/web", headers=MERGE, json=refresh)
    assert resp.status_code == 200, status_message(resp)
    resp = generator.patch(f"{BASE}/applicationsets/web", headers=MERGE, json={"spec": {"generators": [{"list": {}}]}})
    assert resp.status_code == 403 and "spec or status" in status_message(resp)


def test_events_only_about_an_appset(generator: httpx.Client) -> None:
    assert generator.post(EVENTS, json=_event("web.held", "ApplicationSet")).status_code == 201
    resp = generator.post(EVENTS, json=_event("web.secret", "Secret"))
    assert resp.status_code == 403 and "only about an ApplicationSet" in status_message(resp)


def test_no_secret_and_no_create_in_the_tenants_namespace(generator: httpx.Client) -> None:
    for resp in (
        generator.get(f"/api/v1/namespaces/{TENANT}/secrets"),
        generator.get(f"/api/v1/namespaces/{TENANT}/secrets/team-secret"),
        generator.post(f"{BASE}/applications", json={"metadata": {"name": "planted"}}),
        generator.delete(f"{BASE}/applicationsets/web"),
        generator.get(f"{BASE}/applications/anything"),  # list and watch only
    ):
        assert resp.status_code == 403, resp.text
        assert "cannot" in status_message(resp)
    other = "/apis/argoproj.io/v1alpha1/namespaces/team-z/applicationsets"
    assert generator.get(other).status_code == 403  # a namespace not granted
