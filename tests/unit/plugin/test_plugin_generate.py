"""`plugin generate` (plugin/generate.py) in-process: output order and shape, empty output, masking."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from argocd_lifecycle.yaml import yamlio
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
    assert all("annotations" not in d["metadata"] for d in docs)  # no stamp: nothing was rewritten
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


def test_a_document_with_aliases_is_printed_as_written_and_reads_the_same(
    tmp_path: Path, run_plugin: RunPlugin
) -> None:
    # loaded whole under the alias limits (tests/unit/core/yaml/test_yaml_limits.py), printed untouched
    doc = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: &l {a: b}}\ndata: *l\n"
    result = run_plugin(write(tmp_path, {"a.yaml": doc}))
    assert result.stdout == "---\n" + doc
    assert next(iter(yamlio.load_all(result.stdout)))["data"] == {"a": "b"}


def test_a_plain_file_is_printed_as_written_unless_a_transform_changes_it(
    tmp_path: Path, run_plugin: RunPlugin
) -> None:
    kept = (
        "# the web tier\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web  # stays\n"
        "spec:\n  replicas: 3\n  template: {metadata: {labels: {app: web, sha: '3141e59'}}}\n"
    )
    old = "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: nightly\nspec:\n  schedule: '0 3 * * *'\n"
    result = run_plugin(write(tmp_path, {"a.yaml": kept + "---\n" + old}), env={"KUBE_VERSION": "1.29.0"})
    assert result.exit_code == 0, result.stderr
    first, second = result.stdout.split("---\n")[1:]
    assert first == kept  # comments, flow style and quoting as written
    assert yamlio.load(second)["apiVersion"] == "batch/v1"  # the rewritten one is written anew


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


# --- settings fail before any tool runs ---------------------------------------------------------------
STAND_IN = """#!/bin/sh
echo "$(basename "$0") $*" >> "{log}"
printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: from-stand-in\\n'
"""
CHART = {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n"}
KUSTOMIZATION = {"kustomization.yaml": "resources: []\n"}


@pytest.fixture
def tools_log(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """``helm`` and ``kustomize`` stand-ins first on PATH that log each run; (env, log)."""
    bin_dir, log = tmp_path / "bin", tmp_path / "tools.log"
    bin_dir.mkdir()
    for tool in ("helm", "kustomize"):
        (bin_dir / tool).write_text(STAND_IN.format(log=log))
        (bin_dir / tool).chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}, log


def test_the_stand_ins_run_when_the_settings_are_good(
    tmp_path: Path, run_plugin: RunPlugin, tools_log: tuple[dict[str, str], Path]
) -> None:
    env, log = tools_log
    for name, files in (("chart", CHART), ("kust", KUSTOMIZATION)):
        result = run_plugin(write(tmp_path / name, files), env)
        assert result.exit_code == 0, result.stderr
        assert "from-stand-in" in result.stdout
    assert [line.split()[:2] for line in log.read_text().splitlines()] == [["helm", "template"], ["kustomize", "build"]]


@pytest.mark.parametrize(
    ("files", "params", "message"),
    [
        (CHART, {"allowEmpty": "banana"}, "parameter allowEmpty: expected true or false, got 'banana'"),
        (CHART, {"values": "image.tag=1"}, "parameter values: expected a map"),
        (CHART, {"onRemoved": "shrug"}, "parameter onRemoved: expected fail, drop or keep, got 'shrug'"),
        (
            CHART,
            {"additionalVersions": "../outside.yaml"},
            "parameter additionalVersions: ../outside.yaml is outside the application folder",
        ),
        (
            {**CHART, "rules.yaml": "apis: 3\n"},
            {"additionalVersions": "rules.yaml"},
            "additionalVersions (rules.yaml): expected an 'apis' list",
        ),
        (KUSTOMIZATION, {"enableHelm": "maybe"}, "parameter enableHelm: expected true or false, got 'maybe'"),
        (KUSTOMIZATION, {"validate": "perhaps"}, "parameter validate: expected true or false, got 'perhaps'"),
    ],
    ids=["allowEmpty", "values", "onRemoved", "rules-outside", "rules-malformed", "enableHelm", "validate"],
)
def test_a_bad_setting_fails_before_any_tool_runs(
    files: dict[str, str],
    params: dict[str, str],
    message: str,
    tmp_path: Path,
    run_plugin: RunPlugin,
    tools_log: tuple[dict[str, str], Path],
) -> None:
    env, log = tools_log
    app = write(tmp_path / "app", files)
    for where in ("application", "marker"):  # the Application's parameters and the marker file's defaults
        if where == "marker":
            write(app, {".argocd-lifecycle.yaml": "parameters: " + json.dumps(params) + "\n"})
            result = run_plugin(app, env)
        else:
            wire = [{"name": k, "string": v} for k, v in params.items()]
            result = run_plugin(app, {**env, "ARGOCD_APP_PARAMETERS": json.dumps(wire)})
        assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"error: {message}\n"), where
        assert not log.exists(), f"a tool ran: {log.read_text()}"


def test_templates_see_the_parameters_as_given(tmp_path: Path, run_plugin: RunPlugin) -> None:
    template = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n"
        "data: {tier: '{{ parameters.tier }}', files: '{{ parameters.valueFiles | join(\",\") }}'}\n"
    )
    app = write(tmp_path, {".argocd-lifecycle.yaml": "parameters: {tier: gold}\n", "cm.yaml.j2": template})
    wire = '[{"name":"valueFiles","array":["a.yaml","b.yaml"]}]'
    result = run_plugin(app, {"ARGOCD_APP_PARAMETERS": wire})
    assert result.exit_code == 0, result.stderr
    assert next(iter(yamlio.load_all(result.stdout)))["data"] == {"tier": "gold", "files": "a.yaml,b.yaml"}
