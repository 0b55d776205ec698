"""Helm and Kustomize specifics with the real binaries: flags Argo CD relies on, and their failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from argocd_lifecycle import yamlio
from tests.conftest import require_tool
from tests.integration.plugin.test_render_golden import run_generate
from tests.unit.plugin.helpers import write

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: probe\nversion: 0.1.0\n",
    "values.yaml": "greeting: hello\nsize: 1\n",
    "templates/cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n"
        "  namespace: {{ .Release.Namespace }}\ndata:\n  greeting: {{ .Values.greeting | quote }}\n"
        "  size: {{ .Values.size | quote }}\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n"
        '  hasFoo: {{ .Capabilities.APIVersions.Has "example.com/v1/Foo" | quote }}\n'
    ),
}


@pytest.fixture(scope="module", autouse=True)
def _tools() -> None:
    require_tool("helm")
    require_tool("kustomize")


def only_doc(stdout: str) -> dict[str, object]:
    docs = list(yamlio.load_all(stdout))
    assert len(docs) == 1
    doc: dict[str, object] = docs[0]
    return doc


def test_helm_gets_release_namespace_version_apis_and_values(tmp_path: Path) -> None:
    app = write(tmp_path, {**CHART, "env/prod.yaml": "size: 5\n"})
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
    assert doc["metadata"] == {
        "name": "shop-cm",
        "namespace": "prod",
        "annotations": {"argocd-lifecycle.io/rendered-for": "1.30"},
    }
    assert doc["data"] == {"greeting": "hi, there", "size": "5", "kube": "v1.30.0", "hasFoo": "true"}


def test_helm_release_name_parameter(tmp_path: Path) -> None:
    result = run_generate(
        write(tmp_path, CHART),
        {"ARGOCD_APP_NAME": "shop", "ARGOCD_APP_PARAMETERS": '[{"name":"releaseName","string":"other"}]'},
    )
    assert result.returncode == 0, result.stderr
    assert only_doc(result.stdout)["metadata"]["name"] == "other-cm"  # type: ignore[index]


def test_helm_template_error_shows_helm_message(tmp_path: Path) -> None:
    app = write(tmp_path, {**CHART, "templates/bad.yaml": "{{ .Values.nope.deeper }}\n"})
    result = run_generate(app, {"ARGOCD_APP_NAME": "shop"})
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("error: helm failed (exit 1): Error: template: probe/templates/bad.yaml:1:")
    assert "nil pointer evaluating interface {}.deeper" in result.stderr
    assert "Traceback" not in result.stderr


def test_kustomize_error_shows_kustomize_message(tmp_path: Path) -> None:
    app = write(tmp_path, {"kustomization.yaml": "resources: [missing.yaml]\n"})
    result = run_generate(app, {})
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("error: kustomize failed (exit 1): Error: ")
    assert "missing.yaml" in result.stderr


def test_kustomize_enable_helm_with_vendored_chart(tmp_path: Path) -> None:
    app = write(
        tmp_path,
        {
            "kustomization.yaml": "helmCharts:\n- name: mini\n  releaseName: rel\n  valuesInline: {v: hello}\n",
            "charts/mini/Chart.yaml": "apiVersion: v2\nname: mini\nversion: 0.1.0\n",
            "charts/mini/values.yaml": "v: default\n",
            "charts/mini/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\n"
            "metadata: {name: '{{ .Release.Name }}-cm'}\ndata: {v: '{{ .Values.v }}'}\n",
        },
    )
    off = run_generate(app, {})
    assert off.returncode == 1 and "kustomize failed" in off.stderr  # helmCharts need --enable-helm
    on = run_generate(app, {"ARGOCD_APP_PARAMETERS": '[{"name":"enableHelm","string":"true"}]'})
    assert on.returncode == 0, on.stderr
    assert only_doc(on.stdout)["data"] == {"v": "hello"}


def test_kustomize_wins_over_chart_detection(tmp_path: Path) -> None:
    app = write(
        tmp_path,
        {
            **CHART,
            "kustomization.yaml": "resources: [cm.yaml]\n",
            "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-kustomize}\n",
        },
    )
    result = run_generate(app, {})
    assert result.returncode == 0, result.stderr
    assert only_doc(result.stdout)["metadata"]["name"] == "from-kustomize"  # type: ignore[index]
