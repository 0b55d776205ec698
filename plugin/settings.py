"""Everything the plugin learns from Argo CD's environment and the app's marker file, read once into a
frozen value before anything renders: a bad version, name or parameter stops the run here, before any
tool starts."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.plugin import masking
from argocd_lifecycle.plugin.parameters import Parameters, ParamValue, Value, is_release_name, parse_parameters
from argocd_lifecycle.plugin.render.detect import detect
from argocd_lifecycle.plugin.walk import refuse_outside
from argocd_lifecycle.versions import KubeVersion
from argocd_lifecycle.yaml import yamlio
from argocd_lifecycle.yaml.yamlio import DEFAULT_LIMITS, Limits

MARKER = ".argocd-lifecycle.yaml"
#: a Kubernetes namespace: an RFC 1123 label
NAMESPACE = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
#: a KUBE_API_VERSIONS entry: ``v1``, ``apps/v1``, ``apps/v1/Deployment``, ``v1/ConfigMap``
API_VERSION = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9.]*[A-Za-z0-9])?(/[A-Za-z0-9]+){0,2}")


def _marker_value(name: str, value: Any) -> ParamValue:
    where = f"{MARKER}: parameters.{name}"
    if isinstance(value, dict):
        if name == "values":  # nested as an Application's valuesObject; checked and bounded by its reader
            return dict(value)
        out: dict[str, Value] = {}
        for k, v in value.items():
            if isinstance(v, dict | list):
                raise UsageError(f"{where}.{k}: expected a scalar")
            out[str(k)] = v
        return out
    if isinstance(value, list):
        if any(isinstance(v, dict | list) for v in value):
            raise UsageError(f"{where}: expected an array of strings")
        return [str(v) for v in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def marker_defaults(app_dir: Path, limits: Limits | None = None) -> dict[str, ParamValue]:
    """Parameter defaults an app folder declares in its marker file (``parameters:``); may be empty.
    A ``values`` map keeps its YAML types (``replicas: 3`` reaches helm as the number 3) and may nest
    lists and maps below its dotted keys."""
    path = app_dir / MARKER
    if not path.is_file():
        return {}
    refuse_outside(path, app_dir.resolve(), MARKER)
    limits = limits or yamlio.DEFAULT_LIMITS
    try:
        data = yamlio.load(yamlio.read_file(path, MARKER, limits), limits)
    except yaml.YAMLError as exc:
        raise UsageError(yamlio.syntax_error(MARKER, exc)) from exc
    if data is None:
        return {}
    params = data.get("parameters") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(params, dict | None):
        raise UsageError(f"{MARKER}: expected a mapping with an optional 'parameters' mapping")
    return {str(name): _marker_value(str(name), value) for name, value in (params or {}).items()}


def repository_root(app_dir: Path, source_path: str) -> Path:
    """The folder kustomize may read from: the checkout root Argo CD names through
    ARGOCD_APP_SOURCE_PATH (the app's path inside the repository), else the nearest folder up that
    holds ``.git``, else the application folder itself."""
    if source_path.strip() not in ("", "."):
        parts = PurePosixPath(source_path.strip().strip("/")).parts
        if ".." in parts or source_path.startswith("/"):
            raise UsageError(f"ARGOCD_APP_SOURCE_PATH: {source_path!r} must be a relative path without '..'")
        parts = tuple(p for p in parts if p != ".")
        if parts and app_dir.parts[-len(parts) :] == parts:
            return app_dir.parents[len(parts) - 1]
    for folder in (app_dir, *app_dir.parents):
        if (folder / ".git").exists():
            return folder
    return app_dir


def _value_file(app_dir: Path, name: str, limits: Limits) -> Path:
    path = (app_dir / name).resolve()
    if not path.is_relative_to(app_dir) or not path.is_file():
        raise UsageError(f"parameter valueFiles: {name!r} is not a file inside the application folder")
    if path.stat().st_size > limits.max_file_bytes:
        raise UsageError(f"parameter valueFiles: {name!r} is over the {limits.max_file_bytes >> 20} MiB file limit")
    return path


@dataclass(frozen=True)
class AppInfo:
    name: str = ""
    namespace: str = ""
    project: str = ""
    revision: str = ""
    repo_url: str = field(default="", repr=False)
    source_path: str = ""


@dataclass(frozen=True)
class PluginSettings:
    app_dir: Path
    app: AppInfo
    kube_version: KubeVersion | None
    #: ``KUBE_API_VERSIONS`` as given (each entry checked): ``group/version`` and ``group/version/Kind``
    api_versions: tuple[str, ...]
    cluster_name: str
    cluster_phase: str
    upgrade_to: KubeVersion | None
    parameters: Parameters
    #: the marker file's defaults overlaid with the Application's parameters, as given (templates see them)
    raw_parameters: Mapping[str, ParamValue] = field(repr=False)
    #: ARGOCD_ENV_* without the prefix
    env: dict[str, str] = field(repr=False)
    helm: str = "helm"
    kustomize: str = "kustomize"
    #: the folder kustomize may read from (see ``repository_root``)
    repo_root: Path = Path()
    #: ``valueFiles`` resolved inside the app folder
    value_files: tuple[Path, ...] = ()
    #: the Helm release: ``releaseName``, else the application's name when it is a valid one
    release_name: str | None = None
    #: every YAML stream read (sources, marker file, tool output) is bounded by these
    limits: Limits = DEFAULT_LIMITS
    #: texts that must never appear in a diagnostic (tokens, passwords from the environment, values)
    secrets: frozenset[str] = field(default=frozenset(), repr=False)

    @classmethod
    def from_environ(
        cls, environ: Mapping[str, str], *, app_dir: Path, kube_version: str | None = None
    ) -> PluginSettings:
        env = {k[len("ARGOCD_ENV_") :]: v for k, v in environ.items() if k.startswith("ARGOCD_ENV_")}
        raw_version = (environ.get("KUBE_VERSION") or kube_version or env.get("KUBE_VERSION") or "").strip()
        version = KubeVersion.parse(raw_version, where="KUBE_VERSION") if raw_version else None
        raw_upgrade = env.get("CLUSTER_UPGRADE_TO", "").strip()
        upgrade = KubeVersion.parse(raw_upgrade, where="ARGOCD_ENV_CLUSTER_UPGRADE_TO") if raw_upgrade else None
        api_versions = tuple(v.strip() for v in environ.get("KUBE_API_VERSIONS", "").split(",") if v.strip())
        for entry in api_versions:
            if not API_VERSION.fullmatch(entry):
                raise UsageError(f"KUBE_API_VERSIONS: {entry[:80]!r} is not group/version or group/version/Kind")
        namespace = environ.get("ARGOCD_APP_NAMESPACE", "")
        if namespace and not NAMESPACE.fullmatch(namespace):
            raise UsageError(f"ARGOCD_APP_NAMESPACE: {namespace[:80]!r} is not a Kubernetes namespace name")
        if not app_dir.is_dir():
            raise UsageError(f"--path: {app_dir} is not a folder")
        root = app_dir.resolve()
        # the Application's parameters win over the defaults in the marker file
        raw_parameters = {**marker_defaults(root), **parse_parameters(environ.get("ARGOCD_APP_PARAMETERS"))}
        parameters = Parameters.parse(raw_parameters)
        limits = Limits(max_expanded_bytes=parameters.max_output_bytes)
        app = AppInfo(
            name=environ.get("ARGOCD_APP_NAME", ""),
            namespace=namespace,
            project=environ.get("ARGOCD_APP_PROJECT_NAME", ""),
            revision=environ.get("ARGOCD_APP_REVISION", ""),
            repo_url=environ.get("ARGOCD_APP_SOURCE_REPO_URL", ""),
            source_path=environ.get("ARGOCD_APP_SOURCE_PATH", ""),
        )
        is_chart = detect(root) == "helm"
        release = parameters.release_name
        if release is None and is_release_name(app.name):
            release = app.name  # an invalid app name is only an error when helm needs it (helm.py)
        return cls(
            app_dir=root,
            app=app,
            kube_version=version,
            api_versions=api_versions,
            cluster_name=env.get("CLUSTER_NAME", ""),
            cluster_phase=env.get("CLUSTER_PHASE", ""),
            upgrade_to=upgrade,
            parameters=parameters,
            raw_parameters=raw_parameters,
            env=env,
            helm=environ.get("ARGOCD_LIFECYCLE_HELM") or "helm",
            kustomize=environ.get("ARGOCD_LIFECYCLE_KUSTOMIZE") or "kustomize",
            repo_root=repository_root(root, app.source_path),
            # only helm reads them: a plain app may use the parameter for its own templates
            value_files=tuple(_value_file(root, n, limits) for n in parameters.value_files) if is_chart else (),
            release_name=release,
            limits=limits,
            secrets=frozenset(masking.from_environ(environ) | masking.from_values(parameters.values)),
        )
