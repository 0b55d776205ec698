"""`argocd-lifecycle plugin sidecar-values`: the repo-server sidecar for the argo-helm argo-cd chart,
checked against Argo CD's CMP v2 contract (argo-cd common/common.go, manifests/base/repo-server)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from argocd_lifecycle.app.cli import main
from argocd_lifecycle.plugin.commands import sidecar_snippet as snippet
from argocd_lifecycle.plugin.config import plugin_config

REPO = Path(__file__).resolve().parents[3]
CHART = REPO / "charts" / "argocd-lifecycle"

# Argo CD's own paths and identity for a CMP sidecar, written out here on purpose (not imported from
# the module under test): the copyutil init container puts the cmp-server into var-files, the sockets
# live in the shared plugins volume, plugin.yaml is read from the config folder, the user is 999.
CMP_SERVER = "/var/run/argocd/argocd-cmp-server"
MOUNTS = {"var-files": "/var/run/argocd", "plugins": "/home/argocd/cmp-server/plugins"}
PLUGIN_YAML = "/home/argocd/cmp-server/config/plugin.yaml"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(["plugin", "sidecar-values", *args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def sidecar(values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    repo_server = values["repoServer"]
    assert set(repo_server) == {"extraContainers", "volumes"}  # repoServer.volumeMounts is the main container's
    (container,) = repo_server["extraContainers"]
    return container, {v["name"]: v for v in repo_server["volumes"]}


def test_matches_argo_cds_cmp_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert (code, err) == (0, "")
    container, volumes = sidecar(yaml.safe_load(out))
    assert container["command"] == [CMP_SERVER]
    assert "args" not in container  # the cmp-server reads plugin.yaml; our CLI is what plugin.yaml runs
    sc = container["securityContext"]
    assert sc["runAsNonRoot"] is True and sc["runAsUser"] == 999
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    for name, path in MOUNTS.items():
        assert mounts[path]["name"] == name
        assert name not in volumes  # argo-helm already defines these two volumes on the repo-server
    config = mounts[PLUGIN_YAML]
    assert config["subPath"] == "plugin.yaml"
    assert volumes[config["name"]] == {"name": config["name"], "configMap": {"name": "argocd-lifecycle-plugin"}}
    tmp = mounts["/tmp"]
    assert volumes[tmp["name"]] == {"name": tmp["name"], "emptyDir": {}}  # private, not the repo-server's tmp
    assert tmp["name"] != "tmp"
    assert container["image"] == "argocd-lifecycle:0.1.0"


def test_socket_folder_is_where_the_repo_server_dials() -> None:
    # the repo-server dials <plugins>/<name>-<version>.sock; the sidecar must share exactly that folder
    container, _ = sidecar(snippet.sidecar_values(snippet.SidecarOptions()))
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    spec = plugin_config()
    socket = f"{mounts['plugins']}/{spec['metadata']['name']}-{spec['spec']['version']}.sock"
    assert socket == "/home/argocd/cmp-server/plugins/argocd-lifecycle-v1.sock"


def test_locked_down_like_the_chart_pods() -> None:
    container, _ = sidecar(snippet.sidecar_values(snippet.SidecarOptions()))
    assert container["securityContext"] == {
        "runAsNonRoot": True,
        "runAsUser": 999,
        "runAsGroup": 999,
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    assert set(container["resources"]) == {"requests", "limits"}


def test_options_reach_the_snippet(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys,
        "--image",
        "registry.example/lc@sha256:" + "a" * 64,
        "--configmap-name",
        "lc-plugin",
        "--container-name",
        "lifecycle",
    )
    assert code == 0
    container, volumes = sidecar(yaml.safe_load(out))
    assert container["name"] == "lifecycle"
    assert container["image"].endswith("a" * 64)
    assert volumes["lifecycle-plugin"]["configMap"]["name"] == "lc-plugin"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--image", "argocd-lifecycle:latest"), "--image: 'argocd-lifecycle:latest' needs a pinned tag or digest"),
        (("--image", "registry:5000/argocd-lifecycle"), "needs a pinned tag or digest"),
        (("--image", "a b:1"), "--image: 'a b:1' is not an image reference"),
        (("--configmap-name", "Bad_Name"), "--configmap-name: 'Bad_Name' is not a valid ConfigMap name"),
        (("--container-name", "x" * 64), "--container-name:"),
    ],
)
def test_bad_options_are_usage_errors(capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str) -> None:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.startswith("error: ") and message in err
    assert len(err.splitlines()) == 1


def test_chart_template_is_the_committed_file() -> None:
    generated = snippet.render(snippet.SidecarOptions(), chart_template=True)
    committed = (CHART / "files" / "repo-server-values.yaml").read_text()
    assert committed == generated, "run: argocd-lifecycle plugin sidecar-values --chart-template > " + str(
        (CHART / "files" / "repo-server-values.yaml").relative_to(REPO)
    )
    # the placeholders name helpers the chart defines
    helpers = (CHART / "templates" / "_helpers.tpl").read_text()
    for name in re.findall(r'include "([^"]+)"', committed):
        assert f'define "{name}"' in helpers


def test_the_install_page_shows_the_generated_snippet() -> None:
    page = (REPO / "docs" / "install" / "chart.md").read_text()
    block = page.split("```yaml\n# Values for the argo-helm argo-cd chart", 1)[1].split("```", 1)[0]
    assert "# Values for the argo-helm argo-cd chart" + block == snippet.render(snippet.SidecarOptions())
