"""The console script: ``plugin generate`` (run by Argo CD for every render) takes the fast path without
click and imports nothing the render does not use; every other invocation goes through the click CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Runs the entry point as the console script would, then writes every module it imported (last line of stderr).
PROBE = """
import atexit, json, sys
atexit.register(lambda: sys.stderr.write("\\n" + json.dumps(sorted(sys.modules)) + "\\n"))
sys.argv = ["argocd-lifecycle", *sys.argv[1:]]
from argocd_lifecycle.entry import main
main()
"""


def _run(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def _imported(result: subprocess.CompletedProcess[str]) -> set[str]:
    return set(json.loads(result.stderr.splitlines()[-1]))


# what a plain app with nothing to rewrite never needs: the CLI, the tools' renderers and templating,
# schema validation, the API converters, logging, the cluster client, processes and archives
NOT_FOR_A_PLAIN_RENDER = {
    "click",
    "jinja2",
    "jsonschema",
    "kubernetes_validate",
    "kubernetes",
    "logging",
    "subprocess",
    "tempfile",
    "zipfile",
    "importlib.resources",
    "argocd_lifecycle.cli",
    "argocd_lifecycle.plugin.render.helm",
    "argocd_lifecycle.plugin.render.kustomize",
    "argocd_lifecycle.plugin.render.jinja",
    "argocd_lifecycle.plugin.validate",
    "argocd_lifecycle.plugin.transforms.validate_schemas",
    "argocd_lifecycle.plugin.transforms.lifecycle",
    "argocd_lifecycle.plugin.rewrite.crd_checks",
}


def test_plugin_generate_of_a_plain_app_imports_only_what_it_uses(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n")
    (tmp_path / "deploy.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n")
    result = _run(tmp_path, "plugin", "generate", KUBE_VERSION="1.31.2")
    assert result.returncode == 0, result.stderr
    assert "kind: ConfigMap" in result.stdout and "name: demo" in result.stdout
    imported = _imported(result)
    assert "argocd_lifecycle.plugin.generate" in imported
    assert imported & NOT_FOR_A_PLAIN_RENDER == set()
    assert not any(m.startswith("argocd_lifecycle.plugin.rewrite.conv_") for m in imported)


def test_the_converters_are_imported_when_an_object_needs_one(tmp_path: Path) -> None:
    old = "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: web\nspec:\n  rules: []\n"
    (tmp_path / "ingress.yaml").write_text(old)
    result = _run(tmp_path, "plugin", "generate", KUBE_VERSION="1.31.2")
    assert result.returncode == 0, result.stderr
    assert "apiVersion: networking.k8s.io/v1" in result.stdout
    assert "argocd_lifecycle.plugin.rewrite.conv_ingress" in _imported(result)


def test_the_fast_path_keeps_the_error_contract(tmp_path: Path) -> None:
    result = _run(tmp_path, "plugin", "generate")  # an empty folder renders nothing: an error
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("error: ")


def test_anything_else_goes_through_click(tmp_path: Path) -> None:
    result = _run(tmp_path, "--version")
    assert result.returncode == 0 and result.stdout == "argocd-lifecycle, version 0.1.0\n"
    assert "click" in _imported(result)
