"""``timeline`` live against a real kube-apiserver: the recorded failed-sync story is written into the
API (the Application as a custom resource, Events, cluster Secrets) and read back by the command.

The destination is the same API server reached the way Argo CD reaches a cluster: from the cluster
Secret's server, CA and bearer token.
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.app.cli import main

from .conftest import DESTINATION_TOKEN, REPO, APIServer

FAILED = REPO / "tests" / "fixtures" / "timeline" / "failed-sync"

pytestmark = pytest.mark.upstream

CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "applications.argoproj.io"},
    "spec": {
        "group": "argoproj.io",
        "names": {"kind": "Application", "listKind": "ApplicationList", "plural": "applications",
                  "singular": "application"},
        "scope": "Namespaced",
        "versions": [{
            "name": "v1alpha1", "served": True, "storage": True,
            "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
        }],
    },
}  # fmt: skip


def fresh(obj: dict[str, Any]) -> dict[str, Any]:
    """An object as one creates it: without the fields the API server assigns."""
    meta = {k: v for k, v in obj["metadata"].items() if k not in ("resourceVersion", "uid", "creationTimestamp")}
    return {**obj, "metadata": meta}


def items(path: Path) -> list[dict[str, Any]]:
    return [fresh(i) for i in json.loads(path.read_text())["items"]]


def create(http: Any, path: str, obj: dict[str, Any]) -> None:
    resp = http.post(path, json=obj)
    assert resp.status_code in (200, 201, 409), f"POST {path}: {resp.status_code} {resp.text}"


@pytest.fixture(scope="module")
def story(apiserver: APIServer) -> APIServer:
    with apiserver.client() as http:
        for namespace in ("argocd", "payments"):
            create(
                http, "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
            )
        create(http, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", CRD)
        for _ in range(100):  # the CRD's endpoint appears once it is Established
            if http.get("/apis/argoproj.io/v1alpha1/namespaces/argocd/applications").status_code == 200:
                break
            time.sleep(0.2)
        app = fresh(json.loads((FAILED / "app.json").read_text()))
        app["spec"]["destination"]["server"] = apiserver.url
        create(http, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications", app)
        secrets = items(FAILED / "cluster-secrets.json")
        config = {
            "bearerToken": DESTINATION_TOKEN,
            "tlsClientConfig": {"caData": base64.b64encode(apiserver.ca_pem).decode()},
        }
        secrets[0]["data"]["server"] = base64.b64encode(apiserver.url.encode()).decode()
        secrets[0]["data"]["config"] = base64.b64encode(json.dumps(config).encode()).decode()
        for secret in secrets:
            create(http, "/api/v1/namespaces/argocd/secrets", secret)
        for name in ("events-argocd.json", "events-payments.json"):
            for event in items(FAILED / name):
                create(http, f"/api/v1/namespaces/{event['metadata']['namespace']}/events", event)
    return apiserver


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = 0
    try:
        main(["timeline", *args])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_live_story_from_a_real_api_server_matches_the_recorded_one(
    story: APIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys,
        "payments",
        "--kubeconfig",
        str(story.kubeconfig),
        "--since",
        "3650d",
        "--include-resources",
        "-o",
        "json",
    )
    assert code == 0, err
    assert err == ""
    live = json.loads(out)
    recorded = json.loads((FAILED / "expected-timeline.json").read_text())
    assert live["entries"] == recorded["entries"]
    lanes = [e["lane"] for e in live["entries"]]
    assert lanes.count("Cluster") == 2 and lanes.count("Resource") == 22


def test_unknown_application_on_a_real_api_server(story: APIServer, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "ghost", "--kubeconfig", str(story.kubeconfig))
    assert (code, out, err) == (1, "", "error: application 'ghost' not found in namespace 'argocd'\n")


ROLLOUT = REPO / "tests" / "fixtures" / "timeline" / "rollout"


@pytest.fixture(scope="module")
def rollout_story(story: APIServer) -> APIServer:
    """The rollout story beside the failed sync: an Application owned by an ApplicationSet, the waves on it."""
    with story.client() as http:
        create(
            http,
            "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications",
            fresh(json.loads((ROLLOUT / "app.json").read_text())),
        )
        for event in items(ROLLOUT / "events-argocd.json"):
            create(http, "/api/v1/namespaces/argocd/events", event)
    return story


def test_live_rollout_waves_from_a_real_api_server(
    rollout_story: APIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    # the real API server's field selector (involvedObject.kind, .name) picks the owning ApplicationSet's Events
    code, out, err = run(
        capsys, "guestbook-canary", "--kubeconfig", str(rollout_story.kubeconfig), "--since", "3650d", "-o", "json"
    )
    assert code == 0, err
    live = [e for e in json.loads(out)["entries"] if e["lane"] == "Rollout"]
    recorded = json.loads((ROLLOUT / "expected-timeline.json").read_text())
    assert live == [e for e in recorded["entries"] if e["lane"] == "Rollout"]
    assert len(live) == 9 and all(e["object"]["name"] == "guestbook-rollout" for e in live)
    # the payments story has no owner: no Rollout lane although the namespace holds rollout Events
    code, out, _ = run(
        capsys, "payments", "--kubeconfig", str(rollout_story.kubeconfig), "--since", "3650d", "-o", "json"
    )
    assert code == 0 and "Rollout" not in {e["lane"] for e in json.loads(out)["entries"]}
