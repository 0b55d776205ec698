"""Files the chart carries that other parts generate: a test fails when they drift (DESIGN.md §8)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from argocd_lifecycle.plugin.config import render_plugin_yaml

REPO = Path(__file__).resolve().parents[3]
FILES = REPO / "charts" / "argocd-lifecycle" / "files"


def test_plugin_yaml_is_the_plugins_own() -> None:
    assert (FILES / "plugin.yaml").read_text() == render_plugin_yaml() == (REPO / "plugin" / "plugin.yaml").read_text()


def test_notifications_catalog_is_what_notifications_render_prints() -> None:
    if importlib.util.find_spec("argocd_lifecycle.notifications.cli") is None:
        pytest.xfail("`argocd-lifecycle notifications render` is not built yet (issue 6)")
    from click.testing import CliRunner

    from argocd_lifecycle.notifications.cli import notifications

    result = CliRunner().invoke(notifications, ["render", "--format", "configmap"])
    assert result.exit_code == 0, result.output
    committed = FILES / "notifications-cm.yaml"
    assert committed.exists(), "run: argocd-lifecycle notifications render --format configmap > " + str(
        committed.relative_to(REPO)
    )
    assert committed.read_text() == result.stdout
