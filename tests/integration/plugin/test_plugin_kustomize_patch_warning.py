"""A strategic-merge patch of a type kustomize has no schema for replaces whole lists (real kustomize):
the plugin warns, naming the file, the object and the way out; patches of types kustomize knows do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.plugin.helpers import MARKER, docs, run_generate
from tests.unit.plugin.helpers import write

pytestmark = pytest.mark.usefixtures("helm_and_kustomize")


def deployment(api: str) -> str:
    return (
        f"apiVersion: {api}\nkind: Deployment\nmetadata: {{name: web}}\n"
        "spec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
        "    spec:\n      containers:\n      - {name: web, image: web:1}\n      - {name: sidecar, image: proxy:1}\n"
    )


PATCH = (
    "apiVersion: {api}\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  template:\n    spec:\n"
    "      containers:\n      - {{name: web, image: web:2}}\n"
)


def app(tmp_path: Path, api: str) -> Path:
    return write(
        tmp_path,
        {
            MARKER: "",
            "kustomization.yaml": "resources: [base]\npatches:\n- path: patch.yaml\n",
            "base/kustomization.yaml": "resources: [deploy.yaml]\n",
            "base/deploy.yaml": deployment(api),
            "patch.yaml": PATCH.format(api=api),
        },
    )


def test_a_patch_kustomize_cannot_merge_is_warned_about(tmp_path: Path) -> None:
    result = run_generate(app(tmp_path, "apps/v1beta2"), {"ARGOCD_APP_NAME": "web", "KUBE_VERSION": "1.15"})
    assert result.returncode == 0, result.stderr
    # what the warning is about: kustomize dropped the sidecar instead of merging by container name
    (deploy,) = docs(result.stdout)
    assert [c["name"] for c in deploy["spec"]["template"]["spec"]["containers"]] == ["web"]
    assert (
        "warning: kustomization.yaml: patch of apps/v1beta2 Deployment/web: kustomize has no schema for it "
        "(apps/v1beta2 was removed in Kubernetes 1.16" in result.stderr
    )


def test_a_patch_of_a_type_kustomize_knows_merges_without_a_warning(tmp_path: Path) -> None:
    result = run_generate(app(tmp_path, "apps/v1"), {"ARGOCD_APP_NAME": "web", "KUBE_VERSION": "1.30"})
    assert result.returncode == 0, result.stderr
    (deploy,) = docs(result.stdout)
    assert [c["name"] for c in deploy["spec"]["template"]["spec"]["containers"]] == ["web", "sidecar"]
    assert "kustomize has no schema" not in result.stderr
