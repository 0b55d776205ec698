"""Golden renders of the example apps (plugin/generate.py) with the real helm and kustomize, run as
Argo CD runs the plugin."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.integration.plugin.helpers import run_generate

pytestmark = pytest.mark.usefixtures("helm_and_kustomize")


GOLDEN = Path(__file__).parent / "golden"


TARGETS = {
    "1.21": "apps/v1,apps/v1/Deployment,policy/v1beta1,policy/v1beta1/PodDisruptionBudget,v1,v1/Service",
    "1.29.3": "apps/v1,apps/v1/Deployment,policy/v1,policy/v1/PodDisruptionBudget,v1,v1/Service",
}


@pytest.mark.parametrize("version", sorted(TARGETS))
@pytest.mark.parametrize("example", ["plain", "kustomize", "helm", "jinja"])
def test_example_matches_golden(example: str, version: str) -> None:
    env = {
        "ARGOCD_APP_NAME": "demo",
        "ARGOCD_APP_NAMESPACE": "shop",
        "KUBE_VERSION": version,
        "KUBE_API_VERSIONS": TARGETS[version],
        "ARGOCD_ENV_CLUSTER_NAME": "edge-1",
        "ARGOCD_ENV_CLUSTER_PHASE": "Ready",
        "ARGOCD_APP_PARAMETERS": "null",
    }
    result = run_generate(REPO / "examples" / example, env)
    assert result.returncode == 0, result.stderr
    golden = GOLDEN / f"{example}-{version}.yaml"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(result.stdout)
    assert result.stdout == golden.read_text()
