"""`argocd-lifecycle notifications render`: the catalog as a ConfigMap, Helm values or markdown;
`notifications apply`: a server-side apply of such a ConfigMap's keys into the cluster."""

from __future__ import annotations

from pathlib import Path

import click

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.files import write_atomically
from argocd_lifecycle.kube.client import KubeSettings, connect
from argocd_lifecycle.notifications.catalog import apply as server_side
from argocd_lifecycle.notifications.catalog.build import CatalogError, CatalogSettings, build
from argocd_lifecycle.notifications.catalog.formats import FORMATS

_minutes = click.IntRange(1, 10_080)


@click.group()
def notifications() -> None:
    """The Argo CD Notifications catalog (triggers and templates)."""


@notifications.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["configmap", "helm-values", "argo-cd-values", "markdown"]),
    default="configmap",
    show_default=True,
    help="configmap: partial argocd-notifications-cm; helm-values: argo-helm argo-cd values of the catalog; "
    "argo-cd-values: those with the receiver's webhook service and a default subscription of the fleet; "
    "markdown: the docs.",
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


@notifications.command()
@click.option(
    "-f",
    "--filename",
    "manifest",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A v1 ConfigMap manifest holding only the keys to apply (the chart's apply.yaml).",
)
@click.option(
    "-n",
    "--namespace",
    "namespaces",
    multiple=True,
    help="Apply into the ConfigMap of this namespace (repeatable, at most "
    f"{server_side.MAX_NAMESPACES}: the Argo CD namespace and tenants' namespaces); "
    "the manifest then names no namespace, or this one.",
)
@click.option("--field-manager", default="argocd-lifecycle", show_default=True, help="Owner of the applied keys.")
@click.option("--force-conflicts", is_flag=True, help="Take over keys another field manager owns.")
@click.option("--kubeconfig", default=None, help="Kubeconfig file (default: in-cluster, then ~/.kube/config).")
@click.option("--context", default=None, help="Kubeconfig context.")
def apply(
    *,
    manifest: Path,
    namespaces: tuple[str, ...],
    field_manager: str,
    force_conflicts: bool,
    kubeconfig: str | None,
    context: str | None,
) -> None:
    """Server-side apply the keys of a ConfigMap manifest (argocd-notifications-cm) as FIELD_MANAGER.

    Keys other managers own stay theirs; a key we applied before and no longer send is removed; a key
    someone else owns fails with the conflict (exit 1) unless --force-conflicts. With several
    --namespace, every apply is first rehearsed as a server-side dry run: one that would fail stops
    the run before any ConfigMap is written. One line per ConfigMap applied.
    """
    manager = server_side.check_field_manager(field_manager)
    targets = server_side.load_all(manifest, namespaces)
    kube = connect(KubeSettings(kubeconfig, context))
    if len(targets) > 1:
        server_side.rehearse(kube, targets, field_manager=manager, force=force_conflicts)
    for keys in targets:
        click.echo(server_side.apply(kube, keys, field_manager=manager, force=force_conflicts))


def _write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` in one step, so a failure never leaves a half-written file."""
    try:
        write_atomically(path, text)
    except OSError as exc:
        raise LifecycleError(f"--output {path}: cannot write: {exc.strerror}") from exc
