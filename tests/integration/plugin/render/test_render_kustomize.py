"""Kustomize folders (plugin/render/kustomize.py) with the real binary: build, --enable-helm, failures, and
detection before Helm."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.plugin.helpers import PROBE_CHART, only_doc, run_generate
from tests.unit.plugin.helpers import write

pytestmark = pytest.mark.usefixtures("helm_and_kustomize")


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
            **PROBE_CHART,
            "kustomization.yaml": "resources: [cm.yaml]\n",
            "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-kustomize}\n",
        },
    )
    result = run_generate(app, {})
    assert result.returncode == 0, result.stderr
    assert only_doc(result.stdout)["metadata"]["name"] == "from-kustomize"  # type: ignore[index]
