"""`argocd-lifecycle plugin generate | discover | parameters`: the commands Argo CD's sidecar runs."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from argocd_lifecycle.plugin import generate as pipeline
from argocd_lifecycle.plugin.commands import announce
from argocd_lifecycle.plugin.commands import sidecar_snippet as snippet
from argocd_lifecycle.plugin.config import render_plugin_yaml
from argocd_lifecycle.plugin.settings import MARKER

_path_option = click.option(
    "--path",
    "path",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The application folder (Argo CD runs the plugin inside it).",
)


@click.group()
def plugin() -> None:
    """Config-management plugin commands (run by Argo CD's repo-server sidecar)."""


@plugin.command()
@_path_option
@click.option("--kube-version", help="Target Kubernetes version when KUBE_VERSION is empty (1.29 or 1.29.3).")
def generate(path: Path, kube_version: str | None) -> None:
    """Render the application folder into Kubernetes objects on stdout."""
    sys.exit(pipeline.run_command(path, kube_version))


@plugin.command()
@_path_option
def discover(path: Path) -> None:
    """Print the marker file when the folder is ours (exit 0, empty output means no match)."""
    marker = path / MARKER
    if marker.is_file():
        click.echo(str(marker))


@plugin.command()
@_path_option
def parameters(path: Path) -> None:
    """Print the dynamic parameter announcement (a JSON array) for the Argo CD UI."""
    sys.exit(announce.run_command(path))


@plugin.command("config")
def config_cmd() -> None:
    """Print the plugin.yaml the repo-server sidecar needs."""
    click.echo(render_plugin_yaml(), nl=False)


@plugin.command("sidecar-values")
@click.option("--image", default=None, help="The argocd-lifecycle image, pinned by tag or digest.")
@click.option("--configmap-name", default=None, help="The chart's plugin.yaml ConfigMap.")
@click.option("--container-name", default=None, help="Name of the sidecar container.")
@click.option("--chart-template", is_flag=True, help="Emit the Helm template the chart's NOTES.txt renders.")
def sidecar_values(
    image: str | None, configmap_name: str | None, container_name: str | None, chart_template: bool
) -> None:
    """Print argo-cd chart values that add the plugin sidecar to the repo-server."""
    opts = snippet.SidecarOptions(
        image=image or snippet.DEFAULT_IMAGE,
        configmap=configmap_name or snippet.DEFAULT_CONFIGMAP,
        container=container_name or snippet.DEFAULT_CONTAINER,
    )
    click.echo(snippet.render(opts, chart_template=chart_template), nl=False)
