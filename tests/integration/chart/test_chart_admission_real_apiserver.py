"""The generator's least privilege, enforced by the real kube-apiserver (v1.34, the e2e tier's build).

The chart's rendered RBAC and ValidatingAdmissionPolicy are applied as they are; requests are sent with
a real token of the generator's ServiceAccount (TokenRequest), and once by impersonation. RBAC lets the
generator patch Secrets and ApplicationSets; the policy must narrow that to its own annotations.
Without a controller-manager nobody writes the policy's type-checking status; an expression that did not
compile would fail every request it matches (failurePolicy: Fail), which the allowed writes below rule out.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from argocd_lifecycle.model import Annotation
from tests.harness.procs import wait_until
from tests.integration.chart.chartkit import one, render
from tests.integration.chart.realapi import NAMESPACE, RealApi, status_message

pytestmark = pytest.mark.upstream

GENERATOR = "argocd-lifecycle-generator"
POLICY = "argocd-lifecycle-generator.argocd"
MERGE = {"Content-Type": "application/merge-patch+json"}
SECRETS = f"/api/v1/namespaces/{NAMESPACE}/secrets"
APPSETS = f"/apis/argoproj.io/v1alpha1/namespaces/{NAMESPACE}/applicationsets"
CLUSTER, REPOSITORY = "cluster-edge", "repo-private"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def fleet_objects() -> list[dict[str, Any]]:
    """Beside Argo CD's own argocd-secret: a repository and a cluster Secret, an ApplicationSet."""

    def secret(name: str, kind: str, data: dict[str, str]) -> dict[str, Any]:
        labels = {"argocd.argoproj.io/secret-type": kind}
        meta = {"name": name, "namespace": NAMESPACE, "labels": labels, "annotations": {"team.example/owner": "ops"}}
        return {"apiVersion": "v1", "kind": "Secret", "metadata": meta, "data": {k: b64(v) for k, v in data.items()}}

    appset = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": "fleet", "namespace": NAMESPACE, "annotations": {"team.example/owner": "ops"}},
        "spec": {
            "generators": [{"plugin": {"configMapRef": {"name": GENERATOR}}}],
            "template": {
                "metadata": {"name": "{{name}}-guestbook"},
                "spec": {
                    "project": "default",
                    "source": {"repoURL": "https://git.example/apps", "path": "guestbook"},
                    "destination": {"server": "{{server}}", "namespace": "guestbook"},
                },
            },
        },
    }
    app = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "shop", "namespace": NAMESPACE, "annotations": {"team.example/owner": "ops"}},
        "spec": {
            "project": "default",
            "source": {"repoURL": "https://git.example/apps", "path": "shop"},
            "destination": {"server": "https://edge.example", "namespace": "shop"},
        },
    }
    return [
        secret(REPOSITORY, "repository", {"url": "https://git.example/apps", "password": "hunter2"}),
        secret(CLUSTER, "cluster", {"name": "edge", "server": "https://edge.example", "config": "{}"}),
        appset,
        app,
    ]


@pytest.fixture(scope="module")
def api(real_api: RealApi) -> RealApi:
    real_api.apply_all(fleet_objects())
    return real_api


@pytest.fixture(scope="module")
def generator(api: RealApi) -> Iterator[httpx.Client]:
    """Requests as the generator's ServiceAccount, once the policy is in force (probed with dry runs)."""
    with api.as_account(GENERATOR) as client:

        def enforced() -> bool:
            resp = client.patch(
                f"{SECRETS}/argocd-secret", params={"dryRun": "All"}, headers=MERGE,
                json={"metadata": {"annotations": {Annotation.PHASE: "Ready"}}},
            )  # fmt: skip
            return resp.status_code == 403 and POLICY in status_message(resp)

        wait_until(enforced, timeout=60, what="the admission policy to be in force")
        yield client


def patch(client: httpx.Client, path: str, body: dict[str, Any]) -> httpx.Response:
    return client.patch(path, headers=MERGE, json=body)


def annotations(**values: str | None) -> dict[str, Any]:
    return {"metadata": {"annotations": values}}


def refused(resp: httpx.Response, reason: str) -> None:
    message = status_message(resp)
    assert resp.status_code == 403, f"{resp.status_code}: {message}"
    assert f"ValidatingAdmissionPolicy '{POLICY}'" in message, message
    assert reason in message, message


@pytest.mark.parametrize(
    ("what", "path", "body", "reason"),
    [
        ("argocd-secret", "argocd-secret", annotations(**{Annotation.PHASE: "Ready"}), "only Argo CD cluster Secrets"),
        ("a repository Secret", REPOSITORY, annotations(**{Annotation.PHASE: "Ready"}), "only Argo CD cluster Secrets"),
        ("a cluster Secret's data", CLUSTER, {"data": {"config": b64('{"bearerToken":"x"}')}}, "data, type"),
        ("a cluster Secret's data via stringData", CLUSTER, {"stringData": {"server": "https://evil.example"}}, "data"),
        ("freezing a cluster Secret", CLUSTER, {"immutable": True}, "immutability"),
        ("a cluster Secret's labels", CLUSTER, {"metadata": {"labels": {"env": "prod"}}}, "labels"),
        ("relabelling a cluster Secret away", CLUSTER,
         {"metadata": {"labels": {"argocd.argoproj.io/secret-type": "repository"}}}, "labels"),
        ("someone else's annotation", CLUSTER, annotations(**{"team.example/owner": "me"}), "not team.example/owner"),
        ("removing someone else's annotation", CLUSTER, annotations(**{"team.example/owner": None}), "not team"),
        ("a finalizer", CLUSTER, {"metadata": {"finalizers": ["example.com/hold"]}}, "finalizers"),
    ],
)  # fmt: skip
def test_secret_writes_beyond_its_annotations_are_refused(
    generator: httpx.Client, api: RealApi, what: str, path: str, body: dict[str, Any], reason: str
) -> None:
    before = api.admin.get("v1", "Secret", path, NAMESPACE)
    refused(patch(generator, f"{SECRETS}/{path}", body), reason)
    after = api.admin.get("v1", "Secret", path, NAMESPACE)
    assert before is not None and after is not None
    assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"], f"{what} changed"


def test_its_own_annotation_writes_pass(generator: httpx.Client, api: RealApi) -> None:
    # exactly what the generator's writer sends on a transition: a merge patch of the phase annotations
    phase = {Annotation.PHASE: "Ready", Annotation.PHASE_SINCE: "2026-01-02T15:04:05Z",
             Annotation.KUBERNETES_VERSION: "1.34.2"}  # fmt: skip
    resp = patch(generator, f"{SECRETS}/{CLUSTER}", annotations(**phase))
    assert resp.status_code == 200, status_message(resp)
    live = api.admin.get("v1", "Secret", CLUSTER, NAMESPACE)
    assert live is not None
    assert phase.items() <= live["metadata"]["annotations"].items()
    assert live["metadata"]["annotations"]["team.example/owner"] == "ops"
    # and removing one of ours (any argocd-lifecycle.io/ key) is its business too
    resp = patch(generator, f"{SECRETS}/{CLUSTER}", annotations(**{Annotation.KUBERNETES_VERSION: None}))
    assert resp.status_code == 200, status_message(resp)


def test_refresh_annotation_passes_and_nothing_else_on_an_applicationset(generator: httpx.Client) -> None:
    resp = patch(generator, f"{APPSETS}/fleet", annotations(**{Annotation.APPSET_REFRESH: "true"}))
    assert resp.status_code == 200, status_message(resp)
    # its own marks (the refresh stamp, the held-answer claim) beside the refresh request pass too
    ours = {Annotation.APPSET_REFRESH: "true", "argocd-lifecycle.io/refresh-requested": "2026-01-02T15:04:05.000000Z"}
    resp = patch(generator, f"{APPSETS}/fleet", annotations(**ours))
    assert resp.status_code == 200, status_message(resp)
    spec = {"spec": {"template": {"spec": {"project": "admin"}}}}
    refused(patch(generator, f"{APPSETS}/fleet", spec), "spec or status")
    refused(patch(generator, f"{APPSETS}/fleet", annotations(**{"team.example/owner": "me"})), "not change team")
    refused(patch(generator, f"{APPSETS}/fleet", annotations(**{Annotation.APPSET_REFRESH: "false"})), "refresh")
    refused(patch(generator, f"{APPSETS}/fleet", {"metadata": {"labels": {"x": "y"}}}), "labels")


def test_only_the_drift_annotations_pass_on_an_application(generator: httpx.Client) -> None:
    apps = f"/apis/argoproj.io/v1alpha1/namespaces/{NAMESPACE}/applications/shop"
    drift = {
        Annotation.DRIFT_SINCE: "2026-01-02T10:32:05Z",
        Annotation.DRIFT_DEADLINE: "2026-01-02T11:02:05Z",
        Annotation.DRIFT_ATTRIBUTION: "Deployment shop/web: spec.replicas 3 -> 5 by kubectl-edit, Update, 10:32:05Z",
    }
    resp = patch(generator, apps, annotations(**drift))
    assert resp.status_code == 200, status_message(resp)
    resp = patch(generator, apps, annotations(**dict.fromkeys(drift)))  # the episode's end
    assert resp.status_code == 200, status_message(resp)
    refused(patch(generator, apps, {"spec": {"project": "admin"}}), "spec or status")
    refused(patch(generator, apps, annotations(**{"team.example/owner": "me"})), "not change team")
    refused(patch(generator, apps, annotations(**{Annotation.APPSET_REFRESH: "true"})), "application-set-refresh")
    refused(patch(generator, apps, {"metadata": {"finalizers": ["example.com/hold"]}}), "finalizers")


def test_the_rollout_state_passes_and_the_control_may_only_be_removed(generator: httpx.Client, api: RealApi) -> None:
    state, control = "argocd-lifecycle.io/rollout", "argocd-lifecycle.io/rollout-control"
    resp = patch(generator, f"{APPSETS}/fleet", annotations(**{state: '{"v":1}'}))
    assert resp.status_code == 200, status_message(resp)
    # pause, resume and abort are the operator's: the generator may not set them
    refused(patch(generator, f"{APPSETS}/fleet", annotations(**{control: "resume"})), "only remove")
    with api.cluster.http() as admin:  # the operator resumes
        resp = admin.patch(f"{APPSETS}/fleet", headers=MERGE, json=annotations(**{control: "resume"}))
        assert resp.status_code == 200, status_message(resp)
    refused(patch(generator, f"{APPSETS}/fleet", annotations(**{control: "pause"})), "only remove")
    # once acted on, the generator removes it, with the new state beside
    resp = patch(generator, f"{APPSETS}/fleet", annotations(**{control: None, state: '{"v":1,"x":1}'}))
    assert resp.status_code == 200, status_message(resp)


def test_create_and_delete_stop_at_rbac(generator: httpx.Client) -> None:
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "planted", "namespace": NAMESPACE}}
    for resp in (generator.post(SECRETS, json=secret), generator.delete(f"{SECRETS}/{CLUSTER}"),
                 generator.delete(f"{APPSETS}/fleet")):  # fmt: skip
        assert resp.status_code == 403
        assert "cannot" in status_message(resp)  # RBAC's "... cannot create resource ..."


def test_what_the_generator_needs_besides_is_allowed(generator: httpx.Client, api: RealApi) -> None:
    selector = {"labelSelector": "argocd.argoproj.io/secret-type=cluster"}
    assert generator.get(SECRETS, params=selector).status_code == 200
    assert generator.get(SECRETS, params={**selector, "watch": "1", "timeoutSeconds": "1"}).status_code == 200
    assert generator.get(APPSETS).status_code == 200
    apps = f"/apis/argoproj.io/v1alpha1/namespaces/{NAMESPACE}/applications"
    resp = generator.get(apps)
    assert resp.status_code == 200, resp.text
    assert generator.get(apps, params={"watch": "1", "timeoutSeconds": "1"}).status_code == 200
    assert generator.post(apps, json={"metadata": {"name": "x"}}).status_code == 403  # never created
    event = {
        "metadata": {"name": "cluster-edge.1", "namespace": NAMESPACE},
        "involvedObject": {"kind": "Secret", "name": CLUSTER, "namespace": NAMESPACE},
        "reason": "ClusterReady", "message": "ready", "type": "Normal", "count": 1,
        "source": {"component": "argocd-lifecycle"},
    }  # fmt: skip
    assert generator.post(f"/api/v1/namespaces/{NAMESPACE}/events", json=event).status_code == 201
    lease_name = "argocd-lifecycle-generator"
    api.admin.delete("coordination.k8s.io/v1", "Lease", lease_name, NAMESPACE)  # whoever held it before
    leases = f"/apis/coordination.k8s.io/v1/namespaces/{NAMESPACE}/leases"
    lease = {"metadata": {"name": lease_name}, "spec": {"holderIdentity": "replica-a", "leaseDurationSeconds": 15}}
    assert generator.post(leases, json=lease).status_code == 201
    live = generator.get(f"{leases}/{lease_name}").json()
    live["spec"]["holderIdentity"] = "replica-b"
    assert generator.put(f"{leases}/{lease_name}", json=live).status_code == 200
    assert generator.get(f"{leases}/someone-elses").status_code == 403


def test_impersonating_the_generator_meets_the_same_policy(api: RealApi, generator: httpx.Client) -> None:
    user = f"system:serviceaccount:{NAMESPACE}:{GENERATOR}"
    with api.cluster.http() as admin:
        resp = admin.patch(
            f"{SECRETS}/argocd-secret", json=annotations(**{Annotation.PHASE: "Ready"}),
            headers={**MERGE, "Impersonate-User": user},
        )  # fmt: skip
        refused(resp, "only Argo CD cluster Secrets")
        # the policy binds the generator only: the admin (Argo CD, a person) writes as before
        resp = admin.patch(
            f"{SECRETS}/argocd-secret", json=annotations(**{"team.example/rotated": "yes"}), headers=MERGE
        )
        assert resp.status_code == 200, status_message(resp)


def test_the_policy_names_the_rendered_service_account() -> None:
    # the identity the policy matches is the one the Deployment runs as
    docs = render()
    policy = one(docs, "ValidatingAdmissionPolicy", POLICY)
    account = one(docs, "Deployment")["spec"]["template"]["spec"]["serviceAccountName"]
    (condition,) = policy["spec"]["matchConditions"]
    assert condition["expression"] == f'request.userInfo.username == "system:serviceaccount:{NAMESPACE}:{account}"'
