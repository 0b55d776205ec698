"""Helm charts: ``helm template`` the way Argo CD would, with the target cluster's version and APIs."""

from __future__ import annotations

from pathlib import Path

from argocd_lifecycle import yamlio
from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.render.tool import run_tool
from argocd_lifecycle.plugin.settings import PluginSettings


def _declared_dependencies(chart_dir: Path) -> list[dict[str, str]]:
    deps: list[dict[str, str]] = []
    for name in ("Chart.yaml", "requirements.yaml"):
        path = chart_dir / name
        if not path.is_file():
            continue
        try:
            data = yamlio.load(path.read_text(encoding="utf-8")) or {}
        except Exception as exc:
            raise RenderError(f"{name}: cannot be read as YAML: {exc}") from exc
        for dep in (data.get("dependencies") or []) if isinstance(data, dict) else []:
            if isinstance(dep, dict) and dep.get("name"):
                deps.append({"name": str(dep["name"]), "version": str(dep.get("version", ""))})
    return deps


def check_vendored_dependencies(chart_dir: Path) -> None:
    """Argo CD's sidecar has no network to fetch charts: dependencies must be in ``charts/``."""
    charts = chart_dir / "charts"
    missing = []
    for dep in _declared_dependencies(chart_dir):
        name = dep["name"]
        if (charts / name).is_dir() or any(charts.glob(f"{name}-*.tgz")):
            continue
        missing.append(f"{name} {dep['version']}".strip())
    if missing:
        raise RenderError(
            f"chart needs dependencies that are not vendored in charts/: {', '.join(missing)} "
            "(run `helm dependency build` and commit charts/)"
        )


def _set_value(value: str) -> str:
    # --set splits on commas; escape them so a value stays one value.
    return value.replace("\\", "\\\\").replace(",", "\\,")


def helm_argv(settings: PluginSettings) -> list[str]:
    params = settings.parameters
    release = params.release_name or settings.app.name or "release"
    argv = [settings.helm, "template", release, ".", "--include-crds"]
    if settings.app.namespace:
        argv += ["--namespace", settings.app.namespace]
    if settings.kube_version is not None:
        argv += ["--kube-version", settings.kube_version.semver]
    for api in settings.api_versions:
        argv += ["--api-versions", api]
    for values_file in params.value_files:
        path = (settings.app_dir / values_file).resolve()
        if not path.is_relative_to(settings.app_dir) or not path.is_file():
            raise RenderError(f"parameter valueFiles: {values_file!r} is not a file inside the application folder")
        argv += ["--values", str(path)]
    for key, value in params.values:
        argv += ["--set", f"{key}={_set_value(value)}"]
    return argv


def render(settings: PluginSettings) -> str:
    check_vendored_dependencies(settings.app_dir)
    return run_tool("helm", helm_argv(settings), cwd=settings.app_dir)
