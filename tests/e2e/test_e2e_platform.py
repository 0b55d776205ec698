"""The harness itself: real Argo CD syncs from the local git repository, with and without our plugin."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness import argocd
from tests.harness.loop import last_applied
from tests.harness.platform import Platform
from tests.harness.procs import wait_until

pytestmark = pytest.mark.e2e

APPS = Path(__file__).parent / "apps"
IN_CLUSTER = "https://kubernetes.default.svc"


def application(name: str, repo: str, path: str, namespace: str, plugin: dict[str, object] | None = None) -> dict:
    source: dict[str, object] = {"repoURL": repo, "path": path, "targetRevision": "main"}
    if plugin is not None:
        source["plugin"] = plugin
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": name, "namespace": argocd.NAMESPACE},
        "spec": {
            "project": "default",
            "source": source,
            "destination": {"server": IN_CLUSTER, "namespace": namespace},
            "syncPolicy": {"automated": {}, "syncOptions": ["CreateNamespace=true"]},
        },
    }


def synced(platform: Platform, name: str) -> dict | None:
    app = platform.mgmt.get("argoproj.io/v1alpha1", "Application", name, argocd.NAMESPACE)
    status = (app or {}).get("status") or {}
    phase = (status.get("operationState") or {}).get("phase")
    if (status.get("sync") or {}).get("status") == "Synced" and phase == "Succeeded":
        return app
    return None


def test_directory_application_syncs_from_file_repository(platform: Platform) -> None:
    platform.git.copy_tree(APPS / "smoke", "smoke")
    platform.git.commit("smoke: one ConfigMap")
    platform.mgmt.apply(application("smoke", platform.git.url, "smoke", "e2e-smoke"))

    wait_until(lambda: synced(platform, "smoke"), timeout=120, what="Application smoke to sync")
    cm = platform.mgmt.get("v1", "ConfigMap", "smoke", "e2e-smoke")
    assert cm is not None and cm["data"] == {"k": "v"}


def test_plugin_application_renders_through_cmp_server(platform: Platform) -> None:
    platform.git.copy_tree(APPS / "hpa", "hpa")
    platform.git.commit("hpa: HPA-targeted Deployment")
    plugin = {"name": "argocd-lifecycle-v1"}
    platform.mgmt.apply(application("hpa", platform.git.url, "hpa", "e2e-hpa", plugin=plugin))

    app = wait_until(lambda: synced(platform, "hpa"), timeout=120, what="Application hpa to sync")
    deployment = platform.mgmt.get("apps/v1", "Deployment", "web", "e2e-hpa")
    assert deployment is not None
    annotations = deployment["metadata"].get("annotations") or {}
    assert "argocd-lifecycle.io/rendered-for" not in annotations  # no per-render stamp (it resynced everything)
    # the HPA owns the replica count: what Argo CD applied carries none
    assert "replicas" not in last_applied(deployment)["spec"]
    assert {r["kind"] for r in app["status"]["resources"]} == {"Deployment", "HorizontalPodAutoscaler"}
