"""`scan --render` (plugin/commands/scan.py) on Helm and Kustomize sources with the real binaries."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.conftest import REPO, require_tool
from tests.integration.plugin.helpers import INGRESS
from tests.unit.plugin.helpers import write

# --- scan --render -----------------------------------------------------------------------------------
CHART = {
    "Chart.yaml": "apiVersion: v2\nname: legacy\nversion: 0.1.0\n",
    "templates/cron.yaml": (
        "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: {{ .Release.Name }}-report\n"
        "spec:\n  schedule: '0 1 * * *'\n  jobTemplate: {spec: {template: {spec: {containers: []}}}}\n"
    ),
    "templates/pdb.yaml": (
        '{{- if .Capabilities.APIVersions.Has "policy/v1/PodDisruptionBudget" }}\napiVersion: policy/v1\n'
        "{{- else }}\napiVersion: policy/v1beta1\n{{- end }}\nkind: PodDisruptionBudget\n"
        "metadata: {name: pdb}\nspec: {minAvailable: 1}\n"
    ),
}


KUSTOMIZATION = {
    "kustomization.yaml": "resources: [ingress.yaml]\nnamespace: web\n",
    "ingress.yaml": INGRESS,
}


def scan(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "KUBE_"))}
    return subprocess.run(
        [str(REPO / ".venv" / "bin" / "argocd-lifecycle"), "scan", *argv],
        env={**env, "ARGOCD_APP_NAME": "legacy"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_scan_render_sees_helm_output_as_argo_cd_would(tmp_path: Path) -> None:
    require_tool("helm")
    app = write(tmp_path / "chart", CHART)
    result = scan(str(app), "--render", "-t", "1.25", "-o", "json")
    assert result.returncode == 3, result.stderr
    items = json.loads(result.stdout)["items"]
    assert [(i["kind"], i["name"], i["status"]) for i in items] == [("CronJob", "legacy-report", "removed")]
    assert items[0]["file"] == f"{app} (helm template)"
    # without --render the templates are not manifests: nothing to parse as Kubernetes objects
    plain = scan(str(app), "-t", "1.25")
    assert plain.returncode == 1 and "YAML syntax error" in plain.stderr


def test_scan_render_kustomize(tmp_path: Path) -> None:
    require_tool("kustomize")
    app = write(tmp_path / "k", KUSTOMIZATION)
    result = scan(str(app), "--render", "-t", "1.21")
    assert result.returncode == 2, result.stderr
    assert "Ingress" in result.stdout and "web" in result.stdout and "networking.k8s.io/v1" in result.stdout
