"""Helm charts (plugin/render/helm.py) with the real binary: the flags Argo CD relies on, and its failures."""

from __future__ import annotations

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
