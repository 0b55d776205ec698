"""How the plugin reads Argo CD's environment (plugin/settings.py): versions in both formats, the marker
file's defaults, secrets kept out of reprs."""

from __future__ import annotations

from pathlib import Path

import pytest

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.versions import KubeVersion


@pytest.mark.parametrize(
    ("raw", "minor", "semver"),
    [
        ("1.29", "1.29", "1.29.0"),
        ("1.29.3", "1.29", "1.29.3"),
        ("v1.34.2", "1.34", "1.34.2"),
        ("1.29+", "1.29", "1.29.0"),
    ],
)
def test_kube_version_formats(raw: str, minor: str, semver: str, tmp_path: Path) -> None:
    settings = PluginSettings.from_environ({"KUBE_VERSION": raw}, app_dir=tmp_path)
    assert settings.kube_version is not None
    assert settings.kube_version.minor_version == minor
    assert settings.kube_version.semver == semver


def test_empty_kube_version_falls_back_to_flag_then_env(tmp_path: Path) -> None:
    assert PluginSettings.from_environ({"KUBE_VERSION": ""}, app_dir=tmp_path).kube_version is None
    flag = PluginSettings.from_environ({"KUBE_VERSION": ""}, app_dir=tmp_path, kube_version="1.30")
    assert flag.kube_version == KubeVersion(1, 30)
    env = PluginSettings.from_environ({"ARGOCD_ENV_KUBE_VERSION": "1.31.2"}, app_dir=tmp_path)
    assert env.kube_version == KubeVersion(1, 31, 2)
    # Argo CD's own KUBE_VERSION wins over both fallbacks
    both = PluginSettings.from_environ(
        {"KUBE_VERSION": "1.28", "ARGOCD_ENV_KUBE_VERSION": "1.31"}, app_dir=tmp_path, kube_version="1.30"
    )
    assert both.kube_version == KubeVersion(1, 28)


def test_api_versions_keep_both_entry_shapes(tmp_path: Path) -> None:
    env = {"KUBE_API_VERSIONS": "apps/v1,apps/v1/Deployment,v1,v1/ConfigMap,"}
    settings = PluginSettings.from_environ(env, app_dir=tmp_path)
    assert settings.api_versions == ("apps/v1", "apps/v1/Deployment", "v1", "v1/ConfigMap")


def test_argocd_env_and_app_fields(tmp_path: Path) -> None:
    env = {
        "ARGOCD_APP_NAME": "shop",
        "ARGOCD_APP_NAMESPACE": "prod",
        "ARGOCD_APP_PROJECT_NAME": "team",
        "ARGOCD_APP_REVISION": "abc123",
        "ARGOCD_ENV_CLUSTER_NAME": "edge-7",
        "ARGOCD_ENV_CLUSTER_PHASE": "Upgrading",
        "ARGOCD_ENV_CLUSTER_UPGRADE_TO": "1.33",
    }
    s = PluginSettings.from_environ(env, app_dir=tmp_path)
    assert (s.app.name, s.app.namespace, s.app.project, s.app.revision) == ("shop", "prod", "team", "abc123")
    assert (s.cluster_name, s.cluster_phase, s.upgrade_to) == ("edge-7", "Upgrading", KubeVersion(1, 33))
    assert s.env["CLUSTER_NAME"] == "edge-7"


def test_marker_defaults_lose_to_application_parameters(tmp_path: Path) -> None:
    (tmp_path / ".argocd-lifecycle.yaml").write_text("parameters:\n  allowEmpty: true\n  releaseName: fromgit\n")
    s = PluginSettings.from_environ(
        {"ARGOCD_APP_PARAMETERS": '[{"name":"releaseName","string":"fromapp"}]'}, app_dir=tmp_path
    )
    assert s.raw_parameters == {"allowEmpty": "true", "releaseName": "fromapp"}
    assert (s.parameters.allow_empty, s.parameters.release_name) == (True, "fromapp")


def test_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is not a folder"):
        PluginSettings.from_environ({}, app_dir=tmp_path / "nope")


def test_tokens_from_the_environment_are_kept_out_of_repr(tmp_path: Path) -> None:
    s = PluginSettings.from_environ({"ARGOCD_ENV_API_TOKEN": "s3cr3t-value"}, app_dir=tmp_path)
    assert "s3cr3t-value" in s.secrets
    assert "s3cr3t-value" not in repr(s)
