"""`plugin discover | parameters | config` (plugin/commands/cli.py) through click's runner: stdout and stderr apart."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from argocd_lifecycle.app.cli import cli
from argocd_lifecycle.yaml import yamlio
from tests.unit.plugin.helpers import write


def test_discover(tmp_path: Path) -> None:
    runner = CliRunner()
    miss = runner.invoke(cli, ["plugin", "discover", "--path", str(tmp_path)])
    assert (miss.exit_code, miss.stdout) == (0, "")  # Argo CD: exit 0 and empty output = no match
    write(tmp_path, {".argocd-lifecycle.yaml": ""})
    hit = runner.invoke(cli, ["plugin", "discover", "--path", str(tmp_path)])
    assert hit.exit_code == 0 and hit.stdout.strip().endswith(".argocd-lifecycle.yaml")


def test_parameters_announce_helm_values(tmp_path: Path) -> None:
    runner = CliRunner()
    plain = runner.invoke(cli, ["plugin", "parameters", "--path", str(tmp_path)])
    assert json.loads(plain.stdout) == []
    write(
        tmp_path,
        {
            "Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
            "values.yaml": "image: {tag: '1.2'}\nreplicas: 2\nflag: true\nlist: [1]\n",
        },
    )
    announced = json.loads(runner.invoke(cli, ["plugin", "parameters", "--path", str(tmp_path)]).stdout)
    assert announced == [
        {
            "name": "values",
            "title": "Helm values",
            "collectionType": "map",
            "map": {"image.tag": "1.2", "replicas": "2", "flag": "true"},
        }
    ]


def test_committed_plugin_yaml_matches_the_code(repo_root: Path) -> None:
    printed = CliRunner().invoke(cli, ["plugin", "config"]).stdout
    assert (repo_root / "plugin" / "plugin.yaml").read_text() == printed
    config = yamlio.load(printed)
    assert config["metadata"]["name"] == "argocd-lifecycle" and config["spec"]["version"] == "v1"
    assert config["spec"]["discover"] == {"fileName": ".argocd-lifecycle.yaml"}
    assert config["spec"]["generate"]["command"] == ["argocd-lifecycle", "plugin", "generate"]


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["plugin", "nope"])
    assert result.exit_code == 2 and "No such command" in result.stderr
