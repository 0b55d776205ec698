"""The notifications apply Job on a real kube-apiserver: its own argv (`argocd-lifecycle notifications
apply`) as its own ServiceAccount, with the Role the chart renders for it, server-side-applies only our
keys into argocd-notifications-cm and leaves every key another field manager owns alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.chart.applyjob import apply_as, owned_by, run_container
from tests.integration.chart.chartkit import APPLY_JOB, one, render
from tests.integration.chart.realapi import NAMESPACE, RealApi

pytestmark = pytest.mark.upstream

JOB = APPLY_JOB
CM = "argocd-notifications-cm"


@pytest.fixture(scope="module")
def job(real_api: RealApi) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Job's container and the manifest it applies; its account, Role and binding are created."""
    docs = [d for d in render(values=("all-enabled-values.yaml",)) if d["metadata"]["name"] == JOB]
    real_api.apply_all([d for d in docs if d["kind"] in ("ServiceAccount", "Role", "RoleBinding")])
    (container,) = one(docs, "Job", JOB)["spec"]["template"]["spec"]["containers"]
    manifest = yaml.safe_load(one(docs, "ConfigMap", JOB)["data"]["apply.yaml"])
    return container, manifest


def live(api: RealApi) -> dict[str, Any]:
    found = api.admin.get("v1", "ConfigMap", CM, NAMESPACE)
    assert found is not None
    return found


def test_only_our_keys_are_applied_and_owned(real_api: RealApi, job: Any, tmp_path: Path) -> None:
    container, manifest = job
    ours = set(manifest["data"])
    assert apply_as(real_api, "argo-helm", {"context": "argocdUrl: https://argocd.example\n"}, force=True) == 200

    first = run_container(real_api, container, manifest, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(f"applied {len(ours)} keys to ConfigMap {NAMESPACE}/{CM}")
    cm = live(real_api)
    assert {k: cm["data"][k] for k in ours} == manifest["data"]
    assert cm["data"]["context"] == "argocdUrl: https://argocd.example\n"  # argo-helm's key stays
    assert owned_by(cm, "argocd-lifecycle") == ours
    assert owned_by(cm, "argo-helm") == {"context"}

    again = run_container(real_api, container, manifest, tmp_path)  # every upgrade: nothing changes
    assert again.returncode == 0, again.stderr
    assert live(real_api)["metadata"]["resourceVersion"] == cm["metadata"]["resourceVersion"]

    dropped = sorted(ours)[0]  # a key a newer catalog no longer has is removed, not left behind
    fewer = {**manifest, "data": {k: v for k, v in manifest["data"].items() if k != dropped}}
    assert run_container(real_api, container, fewer, tmp_path).returncode == 0
    assert dropped not in live(real_api)["data"] and "context" in live(real_api)["data"]
    assert run_container(real_api, container, manifest, tmp_path).returncode == 0


def test_a_key_someone_else_owns_fails_the_job_until_forced(real_api: RealApi, job: Any, tmp_path: Path) -> None:
    container, manifest = job
    assert run_container(real_api, container, manifest, tmp_path).returncode == 0
    key = sorted(manifest["data"])[0]
    assert apply_as(real_api, "ops-person", {key: "edited by hand\n"}, force=True) == 200

    refused = run_container(real_api, container, manifest, tmp_path)
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.startswith("error: apply ") and "Traceback" not in refused.stderr
    assert "conflict" in refused.stderr and key in refused.stderr and "--force-conflicts" in refused.stderr
    assert live(real_api)["data"][key] == "edited by hand\n"  # nothing half-written

    forced = run_container(real_api, container, manifest, tmp_path, "--force-conflicts")
    assert forced.returncode == 0, forced.stderr
    assert live(real_api)["data"][key] == manifest["data"][key]
    assert key in owned_by(live(real_api), "argocd-lifecycle")


def test_the_jobs_account_writes_no_other_configmap(real_api: RealApi, job: Any, tmp_path: Path) -> None:
    container, manifest = job
    other = {**manifest, "metadata": {**manifest["metadata"], "name": "argocd-cm"}}
    out = run_container(real_api, container, other, tmp_path)
    assert out.returncode == 1 and "HTTP 403" in out.stderr and "Traceback" not in out.stderr
    assert (
        not (real_api.admin.get("v1", "ConfigMap", "argocd-cm", NAMESPACE) or {})
        .get("data", {})
        .get(sorted(manifest["data"])[0])
    )
