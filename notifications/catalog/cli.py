"""`argocd-lifecycle notifications render`: the catalog as a ConfigMap, Helm values or markdown."""

from __future__ import annotations

from pathlib import Path

import click

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.files import write_atomically

_minutes = click.IntRange(1, 10_080)


@click.group()
def notifications() -> None:
    """The Argo CD Notifications catalog (triggers and templates)."""


@notifications.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["configmap", "helm-values", "markdown"]),
    default="configmap",
    show_default=True,
    help="configmap: partial argocd-notifications-cm; helm-values: argo-helm argo-cd values; markdown: the docs.",
)
@click.option("--out-of-sync-minutes", type=_minutes, default=20, show_default=True, help="OutOfSync threshold.")
@click.option("--degraded-minutes", type=_minutes, default=10, show_default=True, help="Degraded threshold.")
@click.option(
    "--fresh-minutes", type=_minutes, default=15, show_default=True, help="An older self-heal is not announced."
)
@click.option(
    "--webhook-service",
    default="argocd-lifecycle",
    show_default=True,
    help="Name of the webhook service (service.webhook.<name>) that reaches the receiver.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here (atomically) instead of stdout.",
)
def render(
    *,
    fmt: str,
    out_of_sync_minutes: int,
    degraded_minutes: int,
    fresh_minutes: int,
    webhook_service: str,
    output: Path | None,
) -> None:
    """Render the catalog; the output is the same for the same sources and settings."""
    from argocd_lifecycle.notifications.catalog.build import CatalogError, CatalogSettings, build
    from argocd_lifecycle.notifications.catalog.formats import FORMATS

    try:
        settings = CatalogSettings(
            out_of_sync_minutes=out_of_sync_minutes,
            degraded_minutes=degraded_minutes,
            fresh_minutes=fresh_minutes,
            webhook_service=webhook_service,
        )
    except CatalogError as exc:
        raise click.BadParameter(str(exc).split(": ", 1)[-1], param_hint="'--webhook-service'") from exc
    text = FORMATS[fmt](build(settings))
    if output is None:
        click.echo(text, nl=False)
        return
    _write_atomically(output, text)


def _write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` in one step, so a failure never leaves a half-written file."""
    try:
        write_atomically(path, text)
    except OSError as exc:
        raise LifecycleError(f"--output {path}: cannot write: {exc.strerror}") from exc
