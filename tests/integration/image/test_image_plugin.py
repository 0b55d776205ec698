"""The CMP sidecar's commands (from the chart's plugin.yaml ConfigMap), run from the image: the example
Helm and Kustomize apps render with the image's own helm and kustomize, as uid 999 on a read-only root,
exactly as the development CLI renders them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.integration.chart.chartkit import one, render
from tests.integration.image.rootfs import REPO, run, unpacked

ARGOCD_ENV = {
    "ARGOCD_APP_NAME": "example",
    "ARGOCD_APP_NAMESPACE": "default",
    "KUBE_VERSION": "1.31.2",
    "KUBE_API_VERSIONS": "v1,apps/v1,batch/v1,networking.k8s.io/v1,policy/v1,autoscaling/v2",
}


@pytest.fixture(scope="module")
def root() -> Path:
    return unpacked()


def plugin_command(root: Path, tmp_path: Path, verb: str) -> list[str]:
    """The command the chart's plugin.yaml ConfigMap gives the sidecar for `generate` or the dynamic
    parameters; it is the image's own `plugin config`."""
    rendered = one(render(), "ConfigMap", "argocd-lifecycle-plugin")["data"]["plugin.yaml"]
    out = run(root, ["argocd-lifecycle", "plugin", "config"], scratch=tmp_path / "config")
    assert out.returncode == 0, out.stderr
    spec = yaml.safe_load(rendered)["spec"]
    assert spec == yaml.safe_load(out.stdout)["spec"]
    return list(spec["generate"]["command"] if verb == "generate" else spec["parameters"]["dynamic"]["command"])


@pytest.mark.parametrize("app", ["helm", "kustomize"])
def test_example_app_renders_in_the_image(root: Path, tmp_path: Path, app: str) -> None:
    source = REPO / "examples" / app
    argv = plugin_command(root, tmp_path, "generate")
    out = run(root, argv, mounts=[(source, "/tmp/app")], workdir="/tmp/app", env=ARGOCD_ENV, scratch=tmp_path / "run")
    assert out.returncode == 0, out.stderr
    objects = [doc for doc in yaml.safe_load_all(out.stdout) if doc]
    assert objects and all({"apiVersion", "kind", "metadata"} <= set(doc) for doc in objects)
    # the same render as the development CLI with the same pinned tools
    env = {**os.environ, **ARGOCD_ENV}
    local = subprocess.run(
        [str(REPO / ".venv" / "bin" / "argocd-lifecycle"), *argv[1:]],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert local.returncode == 0, local.stderr
    assert out.stdout == local.stdout


def test_dynamic_parameters_of_the_helm_example(root: Path, tmp_path: Path) -> None:
    argv = plugin_command(root, tmp_path, "parameters")
    out = run(
        root,
        argv,
        mounts=[(REPO / "examples" / "helm", "/tmp/app")],
        workdir="/tmp/app",
        env=ARGOCD_ENV,
        scratch=tmp_path / "run",
    )
    assert out.returncode == 0, out.stderr
    assert yaml.safe_load(out.stdout)  # an announcement, read by Argo CD's UI


def test_a_bad_app_fails_cleanly_in_the_image(root: Path, tmp_path: Path) -> None:
    app = tmp_path / "bad"
    app.mkdir()
    (app / "broken.yaml").write_text("kind: [\n")
    argv = plugin_command(root, tmp_path, "generate")
    out = run(root, argv, mounts=[(app, "/tmp/app")], workdir="/tmp/app", env=ARGOCD_ENV, scratch=tmp_path / "run")
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.startswith("error:") and "Traceback" not in out.stderr
