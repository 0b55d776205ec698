"""The helm argv (plugin/render/helm.py): every flag one --flag=value word, the release after --, value
files as quoted CSV words, and ``values`` as a file with their types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.render.helm import helm_argv, release_of, source_secrets, values_text
from argocd_lifecycle.plugin.settings import PluginSettings
from tests.unit.plugin.helpers import write

CHART = {"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n", "v,a.yaml": "a: 1\n"}


def settings(tmp_path: Path, **env: str) -> PluginSettings:
    return PluginSettings.from_environ(env, app_dir=write(tmp_path, CHART))


def test_no_value_is_a_word_of_its_own_before_the_separator(tmp_path: Path) -> None:
    s = settings(
        tmp_path,
        ARGOCD_APP_NAME="shop",
        ARGOCD_APP_NAMESPACE="prod",
        KUBE_VERSION="1.30",
        KUBE_API_VERSIONS="v1,apps/v1/Deployment",
        ARGOCD_APP_PARAMETERS='[{"name": "valueFiles", "array": ["v,a.yaml"]}]',
    )
    argv = helm_argv(s, Path("/tmp/values.json"))
    assert argv == [
        "helm",
        "template",
        "--include-crds",
        "--namespace=prod",
        "--kube-version=1.30.0",
        '--api-versions="v1"',
        '--api-versions="apps/v1/Deployment"',
        f'--values="{tmp_path.resolve()}/v,a.yaml"',  # one CSV field: the comma stays in the path
        '--values="/tmp/values.json"',
        "--",
        "shop",
        ".",
    ]


def test_values_keep_their_types_and_their_keys(tmp_path: Path) -> None:
    wire = '[{"name": "values", "map": {"a.b": "null", "x=1,y": "{p,q}", "n": "3"}}]'
    text = values_text(settings(tmp_path, ARGOCD_APP_PARAMETERS=wire))
    assert text is not None and json.loads(text) == {"a": {"b": "null"}, "n": "3", "x=1,y": "{p,q}"}
    write(tmp_path, {".argocd-lifecycle.yaml": "parameters:\n  values: {replicas: 3, debug: true}\n"})
    assert json.loads(values_text(settings(tmp_path)) or "") == {"debug": True, "replicas": 3}


def test_an_application_name_helm_would_refuse_needs_the_parameter(tmp_path: Path) -> None:
    with pytest.raises(RenderError, match="ARGOCD_APP_NAME 'shop_prod' is not a Helm release name"):
        release_of(settings(tmp_path, ARGOCD_APP_NAME="shop_prod"))
    wire = '[{"name": "releaseName", "string": "shop-prod"}]'
    assert release_of(settings(tmp_path, ARGOCD_APP_NAME="shop_prod", ARGOCD_APP_PARAMETERS=wire)) == "shop-prod"
    assert release_of(settings(tmp_path)) == "release"


def test_what_a_failed_render_masks_comes_from_every_value_file_and_secret(tmp_path: Path) -> None:
    files = {
        "values.yaml": "db: {password: chart-values-s3cret, port: 5432}\n",
        "charts/dep/values.yaml": "token: dependency-s3cret\n",
        "prod.yaml": "users: [{name: admin, password: value-file-s3cret}]\n",
        "templates/secret.yaml": "kind: Secret\nstringData:\n  pw: *literal-alias-s3cret\n",
    }
    write(tmp_path, files)
    s = settings(tmp_path, ARGOCD_APP_PARAMETERS='[{"name": "valueFiles", "array": ["prod.yaml"]}]')
    found = source_secrets(s)
    assert {"chart-values-s3cret", "dependency-s3cret", "value-file-s3cret", "admin", "literal-alias-s3cret"} <= found
    assert "5432" not in found  # numbers are not strings of the file: line and column numbers stay


def test_a_file_that_cannot_be_read_leaves_helms_message_alone(tmp_path: Path) -> None:
    # no values.yaml, and a template that is not UTF-8: before, its read error replaced helm's message
    (write(tmp_path, CHART) / "templates").mkdir()
    (tmp_path / "templates" / "latin1.yaml").write_bytes(b"kind: Secret\npw: caf\xe9\n")
    assert source_secrets(settings(tmp_path)) == set()
