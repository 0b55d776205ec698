"""Helm charts: ``helm template`` the way Argo CD would, with the target cluster's version and APIs.

No value from the Application or the repository can be read by helm as an option: every flag is one
``--flag=value`` word (pflag takes the rest of the word as the value, whatever it starts with), the
release name and chart come after ``--``, and ``values`` reach helm as a values file the plugin writes
(types exactly as given), never as ``--set`` strings that helm would split on commas and re-type.
"""

from __future__ import annotations

import glob
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from argocd_lifecycle.errors import LifecycleError, RenderError
from argocd_lifecycle.plugin import masking
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.render.tool import RunningTool, start_tool
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.yaml import yamlio


def _declared_dependencies(chart_dir: Path, limits: yamlio.Limits) -> list[dict[str, str]]:
    deps: list[dict[str, str]] = []
    for name in ("Chart.yaml", "requirements.yaml"):
        path = chart_dir / name
        if not path.is_file():
            continue
        try:
            data = yamlio.load(yamlio.read_file(path, name, limits), limits) or {}
        except yaml.YAMLError as exc:
            raise RenderError(yamlio.syntax_error(name, exc)) from exc
        for dep in (data.get("dependencies") or []) if isinstance(data, dict) else []:
            if isinstance(dep, dict) and dep.get("name"):
                deps.append({"name": str(dep["name"]), "version": str(dep.get("version", ""))})
    return deps


def check_vendored_dependencies(chart_dir: Path, limits: yamlio.Limits = yamlio.DEFAULT_LIMITS) -> None:
    """Argo CD's sidecar has no network to fetch charts: dependencies must be in ``charts/``."""
    charts = chart_dir / "charts"
    missing = []
    for dep in _declared_dependencies(chart_dir, limits):
        name = dep["name"]
        if (charts / name).is_dir() or any(charts.glob(f"{glob.escape(name)}-*.tgz")):
            continue
        missing.append(f"{name} {dep['version']}".strip())
    if missing:
        raise RenderError(
            f"chart needs dependencies that are not vendored in charts/: {', '.join(missing)} "
            "(run `helm dependency build` and commit charts/)"
        )


def _csv_word(value: str) -> str:
    """One value for a pflag string-slice flag (``--values``, ``--api-versions``), which splits its word
    as a CSV record: quoted, a comma in a path stays in the path."""
    return '"' + value.replace('"', '""') + '"'


def release_of(settings: PluginSettings) -> str:
    if settings.release_name is not None:
        return settings.release_name
    if settings.app.name:
        raise RenderError(
            f"ARGOCD_APP_NAME {settings.app.name[:80]!r} is not a Helm release name (lowercase letters, digits, "
            "'-' and '.', at most 53 characters): set the parameter releaseName"
        )
    return "release"


def helm_argv(settings: PluginSettings, values_file: Path | None = None) -> list[str]:
    argv = [settings.helm, "template", "--include-crds"]
    if settings.app.namespace:
        argv.append(f"--namespace={settings.app.namespace}")
    if settings.kube_version is not None:
        argv.append(f"--kube-version={settings.kube_version.semver}")
    argv += [f"--api-versions={_csv_word(api)}" for api in settings.api_versions]
    files = [*settings.value_files, *([values_file] if values_file else [])]
    argv += [f"--values={_csv_word(str(path))}" for path in files]
    return [*argv, "--", release_of(settings), "."]


def values_text(settings: PluginSettings) -> str | None:
    """The ``values`` parameter as a values file (JSON is YAML: the types survive exactly)."""
    doc: dict[str, Any] = settings.parameters.values_document()
    return json.dumps(doc) if doc else None


def _value_files(settings: PluginSettings) -> list[Path]:
    """The values helm reads: the chart's own, its unpacked dependencies' and the ``valueFiles``."""
    chart = settings.app_dir
    return [chart / "values.yaml", *sorted(chart.glob("charts/*/values.yaml")), *settings.value_files]


def source_secrets(settings: PluginSettings) -> set[str]:
    """What helm's message may quote that must not be shown, read only when helm failed: the values of
    the Secrets in the chart's templates (those that parse; of the others, every value written in a
    document that says it is a Secret), and every string of the chart's value files.

    Every string, not only those a Secret template uses or those under a key named like a credential:
    a chart reaches a value through helpers, ``toYaml`` of a whole map, ``tpl`` or a variable, so no
    reading of its templates can tell which values end up in a Secret, and a key name says nothing of
    ``db.dsn`` or a ``config`` block. Masking too much only hides, in the one failed render's message,
    a value the message quoted; its template, line and expression (``<.Values.x>``) stay readable."""
    out: set[str] = set()
    templates = settings.app_dir / "templates"
    for path in sorted(templates.rglob("*.y*ml")) if templates.is_dir() else []:
        try:
            out |= masking.from_yaml_text(yamlio.read_file(path, path.name, settings.limits), settings.limits)
        except (LifecycleError, OSError):  # unreadable: helm's own message says so
            continue
    for path in _value_files(settings):
        try:
            out |= masking.from_values_text(yamlio.read_file(path, path.name, settings.limits), settings.limits)
        except (LifecycleError, OSError):  # unreadable: helm's own message says so
            continue
    return out


@dataclass(frozen=True)
class _HelmOverlap:
    """Around ``helm template``: the vendored-dependency check while it renders, the source's secrets
    masked when it failed, the values file removed once it is done."""

    settings: PluginSettings
    diagnostics: Diagnostics
    values_dir: tempfile.TemporaryDirectory[str] | None

    def mask(self, text: str) -> str:
        return self.diagnostics.clean(text)

    def meanwhile(self) -> None:
        check_vendored_dependencies(self.settings.app_dir, self.settings.limits)

    def failed(self) -> None:
        self.diagnostics.secrets.add(source_secrets(self.settings))

    def done(self) -> None:
        if self.values_dir is not None:
            self.values_dir.cleanup()


def start(settings: PluginSettings, diagnostics: Diagnostics) -> RunningTool:
    """Start ``helm template``; the vendored-dependency check runs while helm renders (it decides the
    message, not whether helm may run: helm itself fails on a dependency missing from ``charts/``)."""
    release_of(settings)  # an unusable release name fails before helm starts
    text = values_text(settings)
    values_file, tmp = None, None
    if text is not None:
        tmp = tempfile.TemporaryDirectory(prefix="argocd-lifecycle-values-")
        values_file = Path(tmp.name, "values.json")
        try:
            values_file.write_text(text, encoding="utf-8")
        except OSError:
            tmp.cleanup()
            raise
    return start_tool(
        "helm",
        helm_argv(settings, values_file),
        cwd=settings.app_dir,
        max_output=settings.limits.max_expanded_bytes,
        overlap=_HelmOverlap(settings, diagnostics, tmp),
    )
