"""Helm charts (plugin/render/helm.py) with the real binary: the flags Argo CD relies on, and its failures."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, TOOLS_BIN
from tests.integration.plugin.helpers import PROBE_CHART, docs, only_doc, run_generate
from tests.unit.plugin.helpers import write

pytestmark = pytest.mark.usefixtures("helm_and_kustomize")


def test_helm_gets_release_namespace_version_apis_and_values(tmp_path: Path) -> None:
    app = write(tmp_path, {**PROBE_CHART, "env/prod.yaml": "size: 5\n"})
    result = run_generate(
        app,
        {
            "ARGOCD_APP_NAME": "shop",
            "ARGOCD_APP_NAMESPACE": "prod",
            "KUBE_VERSION": "1.30",
            "KUBE_API_VERSIONS": "v1,v1/ConfigMap,example.com/v1,example.com/v1/Foo",
            "ARGOCD_APP_PARAMETERS": '[{"name":"valueFiles","array":["env/prod.yaml"]},'
            '{"name":"values","map":{"greeting":"hi, there"}}]',
        },
    )
    assert result.returncode == 0, result.stderr
    doc = only_doc(result.stdout)
    assert doc["metadata"] == {"name": "shop-cm", "namespace": "prod"}
    assert doc["data"] == {"greeting": "hi, there", "size": "5", "kube": "v1.30.0", "hasFoo": "true"}


def test_helm_release_name_parameter(tmp_path: Path) -> None:
    result = run_generate(
        write(tmp_path, PROBE_CHART),
        {"ARGOCD_APP_NAME": "shop", "ARGOCD_APP_PARAMETERS": '[{"name":"releaseName","string":"other"}]'},
    )
    assert result.returncode == 0, result.stderr
    assert only_doc(result.stdout)["metadata"]["name"] == "other-cm"  # type: ignore[index]


def test_helm_template_error_shows_helm_message(tmp_path: Path) -> None:
    app = write(tmp_path, {**PROBE_CHART, "templates/bad.yaml": "{{ .Values.nope.deeper }}\n"})
    result = run_generate(app, {"ARGOCD_APP_NAME": "shop"})
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("error: helm failed (exit 1): Error: template: probe/templates/bad.yaml:1:")
    assert "nil pointer evaluating interface {}.deeper" in result.stderr
    assert "Traceback" not in result.stderr


def test_nested_values_from_the_marker_file_reach_helm_as_given(tmp_path: Path) -> None:
    """As an Application's ``valuesObject``: lists and maps below a key, merged by helm into the chart's
    defaults; the Application's ``values`` parameter stays a map of strings and replaces the whole."""
    marker = (
        "parameters:\n  values:\n    image.tag: '1.2'\n    hosts: [a.example.test, b.example.test]\n"
        "    resources:\n      requests: {cpu: 100m}\n    env:\n      - {name: A, value: '1', port: 80}\n"
    )
    chart = {
        **PROBE_CHART,
        ".argocd-lifecycle.yaml": marker,
        "values.yaml": "resources: {limits: {cpu: 1}}\n",
        "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
        "data:\n  values: {{ .Values | toJson | quote }}\n  first: {{ index .Values.hosts 0 | quote }}\n",
    }
    result = run_generate(write(tmp_path, chart), {"ARGOCD_APP_NAME": "shop"})
    assert result.returncode == 0, result.stderr
    doc = only_doc(result.stdout)
    assert doc["data"]["first"] == "a.example.test"  # type: ignore[index]
    assert json.loads(doc["data"]["values"]) == {  # type: ignore[index]
        "image": {"tag": "1.2"},
        "hosts": ["a.example.test", "b.example.test"],
        "resources": {"limits": {"cpu": 1}, "requests": {"cpu": "100m"}},  # merged with the chart's own
        "env": [{"name": "A", "value": "1", "port": 80}],
    }
    params = '[{"name": "values", "map": {"hosts": "one.example.test"}}]'
    result = run_generate(tmp_path, {"ARGOCD_APP_NAME": "shop", "ARGOCD_APP_PARAMETERS": params})
    assert result.returncode == 0, result.stderr
    values = json.loads(only_doc(result.stdout)["data"]["values"])  # type: ignore[index]
    assert values == {"hosts": "one.example.test", "resources": {"limits": {"cpu": 1}}}


TAIL = ("--", "argocd-lifecycle", ".")


def test_a_real_chart_renders_as_helm_renders_it() -> None:
    """The project's own chart, through the plugin and through helm with the same release, namespace
    and version: the same objects (the values file, the argv form and the limits change nothing)."""
    chart = REPO / "charts" / "argocd-lifecycle"
    env = {"ARGOCD_APP_NAME": "argocd-lifecycle", "ARGOCD_APP_NAMESPACE": "argocd", "KUBE_VERSION": "1.31"}
    ours = run_generate(chart, env)
    assert ours.returncode == 0, ours.stderr
    helm = subprocess.run(
        [str(TOOLS_BIN / "helm"), "template", "--include-crds", "--namespace=argocd", "--kube-version=1.31.0", *TAIL],
        cwd=chart,
        capture_output=True,
        text=True,
        check=True,
    )
    assert docs(ours.stdout) == docs(helm.stdout) and len(docs(helm.stdout)) > 10
