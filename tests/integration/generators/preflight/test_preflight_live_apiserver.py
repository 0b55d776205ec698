"""The preflight live against a real kube-apiserver (Argo CD's CRDs, the recorded story as objects),
and the gate of the real `generator serve`, run with the chart's arguments as its ServiceAccount under
the chart's Role and admission policy: every write the gate makes passes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.app.cli import main
from argocd_lifecycle.kube import lists as kube_lists
from argocd_lifecycle.model import Annotation
from tests.harness.platform import register_node
from tests.harness.procs import Supervisor, free_port, wait_until
from tests.integration.chart.realapi import NAMESPACE, RealApi
from tests.integration.chart.test_chart_generator_least_privilege import ACCOUNT, LEASE, chart_args

pytestmark = pytest.mark.upstream

FIXTURES = Path(__file__).resolve().parents[4] / "tests" / "fixtures" / "preflight"
STORY = [FIXTURES / "applications.json", FIXTURES / "secrets.json"]


def fresh(obj: dict[str, Any]) -> dict[str, Any]:
    """An object as one creates it: without what the API server assigns."""
    meta = {k: v for k, v in obj["metadata"].items() if k not in ("resourceVersion", "uid", "ownerReferences")}
    return {**obj, "metadata": meta}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code: object = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    assert out.out, out.err
    return int(code) if isinstance(code, int) else 1, json.loads(out.out)


def test_live_equals_offline_and_pages(
    chart_api: RealApi, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for path in STORY:
        for item in json.loads(path.read_text())["items"]:
            chart_api.admin.apply(fresh(item), namespace=NAMESPACE)
    argv = ("preflight", "prod-eu-1", "--to", "1.25", "-o", "json")
    code, offline = run(capsys, *argv, *(a for p in STORY for a in ("--from-file", str(p))))
    live_args = ("--kubeconfig", str(chart_api.cluster.kubeconfig), "-n", NAMESPACE)
    monkeypatch.setattr(kube_lists, "PAGE", 2)  # six Applications: three pages
    live_code, live = run(capsys, *argv, *live_args)
    assert (code, live_code) == (3, 3)
    assert live == offline
    assert live["summary"] == {"applications": 5, "objects": 9, "blockers": 3, "rewritten": 3, "deprecated": 1,
                               "blockersByProject": {"default": 3}}  # fmt: skip


def test_the_gate_writes_as_the_generators_account(chart_api: RealApi, tmp_path: Path) -> None:
    api, admin = chart_api, chart_api.admin
    for name in ("cluster-prod-eu-1", "cluster-staging"):  # the story's clusters: nothing to probe there
        admin.delete("v1", "Secret", name, NAMESPACE)
    admin.delete("coordination.k8s.io/v1", "Lease", LEASE, NAMESPACE)
    register_node(api.cluster.api_client(), "node-a")
    config = api.cluster.argocd_cluster_config()
    admin.apply({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "cluster-self", "namespace": NAMESPACE,
                     "labels": {"argocd.argoproj.io/secret-type": "cluster"}},
        "stringData": {"name": "self", "server": api.cluster.server, "config": json.dumps(config)},
    })  # fmt: skip
    resources = [{"group": "policy", "version": "v1beta1", "kind": "PodDisruptionBudget", "namespace": "a",
                  "name": "web"}]  # fmt: skip
    admin.apply({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": "self-app", "namespace": NAMESPACE},
        "spec": {"project": "default", "source": {"repoURL": "https://git.example.test/a", "path": "a"},
                 "destination": {"server": api.cluster.server, "namespace": "a"}},
        "status": {"resources": resources, "sourceType": "Directory"},
    })  # fmt: skip
    token_file = tmp_path / "token"
    token_file.write_text("plugin-token-for-the-test")
    sup = Supervisor(tmp_path / "logs")
    proc = sup.start("generator", chart_args(token_file, api.kubeconfig_for(ACCOUNT), free_port()))
    try:

        def gate() -> dict[str, str]:
            secret = admin.get("v1", "Secret", "cluster-self", NAMESPACE) or {}
            proc.check_alive()
            return {k: v for k, v in (secret["metadata"].get("annotations") or {}).items() if "upgrade" in k}

        def events(reason: str) -> list[dict[str, Any]]:
            return [e for e in admin.list("v1", "Event", NAMESPACE)
                    if e["reason"] == reason and e["involvedObject"]["name"] == "cluster-self"]  # fmt: skip

        patch = {"metadata": {"annotations": {Annotation.UPGRADE_TO: "1.25"}}}
        admin.merge_patch("v1", "Secret", "cluster-self", patch, NAMESPACE)
        wait_until(lambda: gate().get(Annotation.UPGRADE_BLOCKERS) == "1", timeout=90, what="one blocker counted")
        assert gate()[Annotation.UPGRADE_BLOCKED] == (
            "by project: default 1; argocd/self-app: PodDisruptionBudget a/web (policy/v1beta1)"
        )
        wait_until(lambda: events("ClusterUpgradeBlocked"), timeout=30, what="ClusterUpgradeBlocked")

        resources[0]["version"] = "v1"  # what Argo CD records once the manifest in Git is fixed
        admin.merge_patch("argoproj.io/v1alpha1", "Application", "self-app", {"status": {"resources": resources}},
                          NAMESPACE)  # fmt: skip
        wait_until(lambda: gate().get(Annotation.UPGRADE_BLOCKERS) == "0", timeout=30, what="the gate to clear")
        wait_until(lambda: events("ClusterUpgradeClear"), timeout=30, what="ClusterUpgradeClear")
        admin.merge_patch("v1", "Secret", "cluster-self", {"metadata": {"annotations": {Annotation.UPGRADE_TO: None}}},
                          NAMESPACE)  # fmt: skip
        wait_until(lambda: not gate(), timeout=30, what="the gate's annotations to go")
    finally:
        sup.stop_all()
    log = proc.log_path.read_text()
    assert not re.search(r"\b403\b|[Ff]orbidden|denied|ValidatingAdmissionPolicy", log), log[-3000:]
