"""Golden renders of the example apps with the real helm and kustomize, run as Argo CD runs the plugin."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, require_tool

GOLDEN = Path(__file__).parent / "golden"
TARGETS = {
    "1.21": "apps/v1,apps/v1/Deployment,policy/v1beta1,policy/v1beta1/PodDisruptionBudget,v1,v1/Service",
    "1.29.3": "apps/v1,apps/v1/Deployment,policy/v1,policy/v1/PodDisruptionBudget,v1,v1/Service",
}


def run_generate(app_dir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The plugin as the sidecar runs it: a fresh process, cwd = the app folder, Argo CD's variables."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "KUBE_"))}
    return subprocess.run(
        [str(REPO / ".venv" / "bin" / "argocd-lifecycle"), "plugin", "generate"],
        cwd=app_dir,
        env={**base, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.fixture(scope="module", autouse=True)
def _tools() -> None:
    require_tool("helm")
    require_tool("kustomize")


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
