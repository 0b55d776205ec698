"""Files the chart carries that other parts generate: a test fails when they drift (generated files are
reproducible, docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

from argocd_lifecycle.plugin.config import render_plugin_yaml

REPO = Path(__file__).resolve().parents[3]
FILES = REPO / "charts" / "argocd-lifecycle" / "files"
REGENERATE = (
    "argocd-lifecycle notifications render --format configmap > charts/argocd-lifecycle/files/notifications-cm.yaml"
)


def test_plugin_yaml_is_the_plugins_own() -> None:
    assert (FILES / "plugin.yaml").read_text() == render_plugin_yaml() == (REPO / "plugin" / "plugin.yaml").read_text()


def rendered_catalog() -> str:
    """What `notifications render --format configmap` prints."""
    from click.testing import CliRunner

    from argocd_lifecycle.notifications.catalog.cli import notifications

    result = CliRunner().invoke(notifications, ["render", "--format", "configmap"])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_notifications_catalog_is_what_notifications_render_prints() -> None:
    assert (FILES / "notifications-cm.yaml").read_text() == rendered_catalog(), f"run: {REGENERATE}"
