"""`plugin generate` (plugin/generate.py) in-process: output order and shape, empty output, masking."""

from __future__ import annotations

import json
from pathlib import Path

from argocd_lifecycle import yamlio
from tests.unit.plugin.helpers import RunPlugin, write

APP = {
    ".argocd-lifecycle.yaml": "",
    "b/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 2, x: 1}\n",
    "a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {z: '1', a: '2'}\n---\n"
    "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n"
    "spec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 3}\n",
    ".hidden/ignored.yaml": "not: [valid",
    "notes.txt": "ignored",
}


def test_generate_prints_objects_in_source_order(tmp_path: Path, run_plugin: RunPlugin) -> None:
    result = run_plugin(write(tmp_path, APP), {"KUBE_VERSION": "1.30.1"})
    assert result.exit_code == 0
    docs = list(yamlio.load_all(result.stdout))
    assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [
        ("ConfigMap", "cfg"),
        ("HorizontalPodAutoscaler", "web"),
        ("Deployment", "web"),
    ]
    assert list(docs[0]["data"]) == ["z", "a"]  # key order as written, not sorted
    assert docs[2]["spec"] == {"x": 1}
    assert all(d["metadata"]["annotations"]["argocd-lifecycle.io/rendered-for"] == "1.30" for d in docs)
    assert result.stderr == "note: Deployment/web: dropped spec.replicas, HorizontalPodAutoscaler/web scales it\n"


def test_generate_is_deterministic(tmp_path: Path, run_plugin: RunPlugin) -> None:
    app = write(tmp_path, APP)
    assert run_plugin(app).stdout == run_plugin(app).stdout


def test_json_and_list_sources(tmp_path: Path, run_plugin: RunPlugin) -> None:
    app = write(
        tmp_path,
        {
            "svc.json": json.dumps({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}),
            "list.yml": "apiVersion: v1\nkind: List\nitems:\n"
            "- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n",
        },
    )
    result = run_plugin(app)
    assert result.exit_code == 0, result.stderr
    assert [d["kind"] for d in yamlio.load_all(result.stdout)] == ["ConfigMap", "Service"]


def test_allow_empty(tmp_path: Path, run_plugin: RunPlugin) -> None:
    app = write(tmp_path, {".argocd-lifecycle.yaml": "parameters: {allowEmpty: true}\n"})
    result = run_plugin(app)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


def test_aliases_are_expanded_in_the_output(tmp_path: Path, run_plugin: RunPlugin) -> None:
    app = write(
        tmp_path,
        {"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: &l {a: b}}\ndata: *l\n"},
    )
    result = run_plugin(app)
    assert "&" not in result.stdout and "*" not in result.stdout
    assert next(iter(yamlio.load_all(result.stdout)))["data"] == {"a": "b"}


def test_secret_values_never_reach_stderr(tmp_path: Path, run_plugin: RunPlugin) -> None:
    secret = "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData: {password: pa55-w0rd-xyz}\n"
    app = write(
        tmp_path,
        {
            "a.yaml": secret,
            "b.yaml": secret,
            "c.yaml.j2": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ env.DB_TOKEN }}'}\n",
        },
    )
    result = run_plugin(app, {"ARGOCD_ENV_DB_TOKEN": "tok-abcdef-123"})
    assert result.exit_code == 1
    assert "pa55-w0rd-xyz" not in result.stderr and "tok-abcdef-123" not in result.stderr


def test_env_token_in_a_tool_error_is_masked(tmp_path: Path, run_plugin: RunPlugin) -> None:
    # A "helm" that echoes its environment's token in its error, as a badly behaved chart hook might.
    fake_helm = tmp_path / "helm"
    fake_helm.write_text('#!/bin/sh\necho "Error: cannot reach repo with $ARGOCD_ENV_REPO_TOKEN" >&2\nexit 1\n')
    fake_helm.chmod(0o755)
    app = write(tmp_path / "app", {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n"})
    result = run_plugin(app, {"ARGOCD_ENV_REPO_TOKEN": "ghp_supersecret", "ARGOCD_LIFECYCLE_HELM": str(fake_helm)})
    assert result.exit_code == 1
    assert "error: helm failed (exit 1): Error: cannot reach repo with ***" in result.stderr
    assert "ghp_supersecret" not in result.stderr
