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


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"ARGOCD_APP_NAMESPACE": "--values=/etc/x"}, "ARGOCD_APP_NAMESPACE: '--values=/etc/x' is not a Kubernetes"),
        ({"ARGOCD_APP_NAMESPACE": "Prod"}, "ARGOCD_APP_NAMESPACE: 'Prod' is not a Kubernetes namespace name"),
        ({"KUBE_API_VERSIONS": "v1,--set=x=1"}, "KUBE_API_VERSIONS: '--set=x=1' is not group/version"),
        ({"KUBE_API_VERSIONS": "apps/v1/Deployment/extra"}, "KUBE_API_VERSIONS: 'apps/v1/Deployment/extra' is not"),
        ({"ARGOCD_APP_SOURCE_PATH": "../other"}, "ARGOCD_APP_SOURCE_PATH: '../other' must be a relative path"),
    ],
)
def test_argo_cd_values_that_reach_a_tool_are_checked_first(env: dict[str, str], message: str, tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        PluginSettings.from_environ(env, app_dir=tmp_path)
    assert caught.value.message.startswith(message)


def test_the_repository_root(tmp_path: Path) -> None:
    app = tmp_path / "repo" / "apps" / "shop"
    app.mkdir(parents=True)
    root = PluginSettings.from_environ({"ARGOCD_APP_SOURCE_PATH": "apps/shop/"}, app_dir=app).repo_root
    assert root == tmp_path.resolve() / "repo"
    assert PluginSettings.from_environ({}, app_dir=app).repo_root == app.resolve()  # no .git: the app folder
    (tmp_path / "repo" / ".git").mkdir()
    assert PluginSettings.from_environ({}, app_dir=app).repo_root == tmp_path.resolve() / "repo"
    assert (
        PluginSettings.from_environ({"ARGOCD_APP_SOURCE_PATH": "."}, app_dir=app).repo_root
        == tmp_path.resolve() / "repo"
    )


def test_value_files_are_resolved_for_charts_only(tmp_path: Path) -> None:
    wire = '[{"name": "valueFiles", "array": ["prod.yaml"]}]'
    assert PluginSettings.from_environ({"ARGOCD_APP_PARAMETERS": wire}, app_dir=tmp_path).value_files == ()
    (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.0.0\n")
    with pytest.raises(UsageError, match=r"'prod\.yaml' is not a file inside the application folder"):
        PluginSettings.from_environ({"ARGOCD_APP_PARAMETERS": wire}, app_dir=tmp_path)
    (tmp_path / "prod.yaml").write_text("a: 1\n")
    assert PluginSettings.from_environ({"ARGOCD_APP_PARAMETERS": wire}, app_dir=tmp_path).value_files == (
        tmp_path.resolve() / "prod.yaml",
    )


def test_the_release_defaults_to_the_application_name_when_helm_accepts_it(tmp_path: Path) -> None:
    assert PluginSettings.from_environ({"ARGOCD_APP_NAME": "shop"}, app_dir=tmp_path).release_name == "shop"
    assert PluginSettings.from_environ({"ARGOCD_APP_NAME": "ns_shop"}, app_dir=tmp_path).release_name is None


def test_values_and_argocd_env_values_are_secrets(tmp_path: Path) -> None:
    env = {
        "ARGOCD_ENV_DB_PASS": "env-s3cret",
        "ARGOCD_APP_PARAMETERS": '[{"name": "values", "map": {"pw": "val-s3cret"}}]',
    }
    secrets = PluginSettings.from_environ(env, app_dir=tmp_path).secrets
    assert {"env-s3cret", "val-s3cret"} <= secrets


def test_the_marker_files_values_nest_and_the_applications_stay_strings(tmp_path: Path) -> None:
    marker = "parameters:\n  values:\n    db:\n      users: [{name: app, password: nested-s3cret}]\n    count: 3\n"
    (tmp_path / ".argocd-lifecycle.yaml").write_text(marker)
    s = PluginSettings.from_environ({}, app_dir=tmp_path)
    assert s.parameters.values_document() == {
        "db": {"users": [{"name": "app", "password": "nested-s3cret"}]},
        "count": 3,
    }
    assert "nested-s3cret" in s.secrets  # every string below a key is masked, not only the top level
    # the Application's parameter is a map of strings, as the CMP protocol sends it
    with pytest.raises(UsageError, match=r"\(values\)\.map\['db'\]: expected a string, got dict"):
        PluginSettings.from_environ(
            {"ARGOCD_APP_PARAMETERS": '[{"name": "values", "map": {"db": {"users": []}}}]'}, app_dir=tmp_path
        )
    # only values nest: another map in the marker file holds scalars
    (tmp_path / ".argocd-lifecycle.yaml").write_text("parameters:\n  mine: {a: [1]}\n")
    with pytest.raises(UsageError, match=r"parameters\.mine\.a: expected a scalar"):
        PluginSettings.from_environ({}, app_dir=tmp_path)


def test_nested_values_of_the_marker_file_are_checked_once(tmp_path: Path) -> None:
    (tmp_path / ".argocd-lifecycle.yaml").write_text("parameters:\n  values:\n    a: {on: x}\n")
    with pytest.raises(UsageError, match=r"^parameter values: 'a': the key 'True' is not a string \(quote it\)$"):
        PluginSettings.from_environ({}, app_dir=tmp_path)
    # Kubernetes' YAML reads `n` as false: the key was the text "False" before, now it is refused
    (tmp_path / ".argocd-lifecycle.yaml").write_text("parameters:\n  values:\n    n: 3\n")
    with pytest.raises(UsageError, match=r"^parameter values: the key 'False' is not a string \(quote it\)$"):
        PluginSettings.from_environ({}, app_dir=tmp_path)
