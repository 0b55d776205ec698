"""Everything the plugin learns from Argo CD's environment and the app's marker file, read once into a
frozen value before anything renders: a bad version or parameter stops the run here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.plugin.parameters import Parameters, ParamValue, parse_parameters
from argocd_lifecycle.versions import KubeVersion

_SENSITIVE_NAME = re.compile(r"(?i)token|passw|secret|credential|private|apikey|api_key|auth")
MARKER = ".argocd-lifecycle.yaml"


def marker_defaults(app_dir: Path) -> dict[str, ParamValue]:
    """Parameter defaults an app folder declares in its marker file (``parameters:``); may be empty."""
    path = app_dir / MARKER
    if not path.is_file():
        return {}
    from argocd_lifecycle import yamlio

    try:
        data = yamlio.load(path.read_text(encoding="utf-8"))
    except Exception as exc:  # yaml errors and bad bytes: one message naming the file
        raise UsageError(f"{MARKER}: cannot be read as YAML ({type(exc).__name__})") from exc
    if data is None:
        return {}
    params = data.get("parameters") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(params, dict | None):
        raise UsageError(f"{MARKER}: expected a mapping with an optional 'parameters' mapping")
    out: dict[str, ParamValue] = {}
    for name, value in (params or {}).items():
        if isinstance(value, dict):
            out[str(name)] = {str(k): str(v) for k, v in value.items()}
        elif isinstance(value, list):
            out[str(name)] = [str(v) for v in value]
        elif isinstance(value, bool):
            out[str(name)] = "true" if value else "false"
        else:
            out[str(name)] = str(value)
    return out


@dataclass(frozen=True)
class AppInfo:
    name: str = ""
    namespace: str = ""
    project: str = ""
    revision: str = ""
    repo_url: str = ""
    source_path: str = ""


@dataclass(frozen=True)
class PluginSettings:
    app_dir: Path
    app: AppInfo
    kube_version: KubeVersion | None
    #: ``KUBE_API_VERSIONS`` as given: both ``group/version`` and ``group/version/Kind`` entries
    api_versions: tuple[str, ...]
    cluster_name: str
    cluster_phase: str
    upgrade_to: KubeVersion | None
    parameters: Parameters
    #: the marker file's defaults overlaid with the Application's parameters, as given (templates see them)
    raw_parameters: Mapping[str, ParamValue]
    #: ARGOCD_ENV_* without the prefix
    env: dict[str, str] = field(repr=False)
    helm: str = "helm"
    kustomize: str = "kustomize"
    #: values that must never appear in a diagnostic (tokens, passwords from the environment)
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
        secrets = frozenset(v for k, v in environ.items() if _SENSITIVE_NAME.search(k) and len(v) >= 4)
        if not app_dir.is_dir():
            raise UsageError(f"--path: {app_dir} is not a folder")
        # the Application's parameters win over the defaults in the marker file
        raw_parameters = {**marker_defaults(app_dir), **parse_parameters(environ.get("ARGOCD_APP_PARAMETERS"))}
        return cls(
            app_dir=app_dir.resolve(),
            app=AppInfo(
                name=environ.get("ARGOCD_APP_NAME", ""),
                namespace=environ.get("ARGOCD_APP_NAMESPACE", ""),
                project=environ.get("ARGOCD_APP_PROJECT_NAME", ""),
                revision=environ.get("ARGOCD_APP_REVISION", ""),
                repo_url=environ.get("ARGOCD_APP_SOURCE_REPO_URL", ""),
                source_path=environ.get("ARGOCD_APP_SOURCE_PATH", ""),
            ),
            kube_version=version,
            api_versions=api_versions,
            cluster_name=env.get("CLUSTER_NAME", ""),
            cluster_phase=env.get("CLUSTER_PHASE", ""),
            upgrade_to=upgrade,
            parameters=Parameters.parse(raw_parameters),
            raw_parameters=raw_parameters,
            env=env,
            helm=environ.get("ARGOCD_LIFECYCLE_HELM") or "helm",
            kustomize=environ.get("ARGOCD_LIFECYCLE_KUSTOMIZE") or "kustomize",
            secrets=secrets,
        )
