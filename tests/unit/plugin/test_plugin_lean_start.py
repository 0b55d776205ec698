"""Lean start: `plugin generate` (a new process for every render Argo CD asks for) imports only what the
render uses; the figures are in docs/benchmarks.md ("Plugin render")."""

from __future__ import annotations

from pathlib import Path

from tests.unit.app.test_app_entry import imported_modules, run_entry

# what a plain app with nothing to rewrite never needs: the CLI, the tools' renderers and templating,
# schema validation, the deprecation rules and the rewrite engine, logging, the cluster client,
# processes and archives
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
    "argocd_lifecycle.app.cli",
    "argocd_lifecycle.plugin.render.helm",
    "argocd_lifecycle.plugin.render.kustomize",
    "argocd_lifecycle.plugin.render.jinja",
    "argocd_lifecycle.plugin.validate",
    "argocd_lifecycle.plugin.transforms.validate_schemas",
    "argocd_lifecycle.plugin.transforms.lifecycle",
    "argocd_lifecycle.plugin.rewrite.crd_checks",
    # nothing in it is on a deprecated API: the rules and the engine stay out (plugin/rewrite/candidates.py)
    "argocd_lifecycle.deprecations.knowledge",
    "argocd_lifecycle.deprecations.table",
    "argocd_lifecycle.plugin.rewrite.engine",
    "argocd_lifecycle.plugin.rewrite.target",
    "argocd_lifecycle.plugin.transforms.rewrite_apis",
}


def test_plugin_generate_of_a_plain_app_imports_only_what_it_uses(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n")
    (tmp_path / "deploy.yaml").write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n")
    result = run_entry(tmp_path, "plugin", "generate", KUBE_VERSION="1.31.2")
    assert result.returncode == 0, result.stderr
    assert "kind: ConfigMap" in result.stdout and "name: demo" in result.stdout
    imported = imported_modules(result)
    assert "argocd_lifecycle.plugin.generate" in imported
    assert imported & NOT_FOR_A_PLAIN_RENDER == set()
    assert not any(m.startswith("argocd_lifecycle.plugin.rewrite.convert.conv_") for m in imported)


def test_the_converters_are_imported_when_an_object_needs_one(tmp_path: Path) -> None:
    old = "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: web\nspec:\n  rules: []\n"
    (tmp_path / "ingress.yaml").write_text(old)
    result = run_entry(tmp_path, "plugin", "generate", KUBE_VERSION="1.31.2")
    assert result.returncode == 0, result.stderr
    assert "apiVersion: networking.k8s.io/v1" in result.stdout
    assert "argocd_lifecycle.plugin.rewrite.convert.conv_ingress" in imported_modules(result)
