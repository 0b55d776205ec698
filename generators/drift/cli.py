"""``argocd-lifecycle drift APP``: which OutOfSync objects drifted, which fields, from what to what,
changed by whom and when.

Live: the Application from the management cluster, its objects from the destination with the
cluster Secret's credentials (the prober's client). Offline: ``--application FILE --objects FILE``
from ``kubectl get -o json``. The same report either way. Exit 0 no drift attributed, 2 drift
attributed, 1 errors (bad flags too: 2 is taken).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from argocd_lifecycle.drift import text
from argocd_lifecycle.drift.report import MAX_OBJECTS, DriftReport, report, to_read
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.findings_cli import USAGE_EXIT, FindingsCommand, FindingsUsageError
from argocd_lifecycle.generators.drift import files
from argocd_lifecycle.generators.drift.live import live_report
from argocd_lifecycle.kube.client import KubeSettings, connect

EXIT_DRIFT = 2
FORMATS = ("table", "json")


def render(r: DriftReport, output: str) -> str:
    if output == "json":
        return json.dumps(text.to_json(r), indent=2) + "\n"
    return text.table(r)


@click.command("drift", cls=FindingsCommand)
@click.argument("app")
@click.option("-n", "--namespace", default="argocd", show_default=True, help="Namespace of the Application.")
@click.option(
    "--application",
    "application_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Offline: `kubectl get application APP -o json` output (repeatable; a List is fine).",
)
@click.option(
    "--objects",
    "object_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Offline: `kubectl get KIND... -o json` output of the app's objects (repeatable).",
)
@click.option("-o", "--output", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--kubeconfig", type=click.Path(dir_okay=False), help="Live: kubeconfig of the management cluster.")
@click.option("--context", help="Live: kubeconfig context.")
@click.option(
    "--max-objects",
    type=click.IntRange(1, 500),
    default=MAX_OBJECTS,
    show_default=True,
    help="OutOfSync objects read at most; the rest are counted.",
)
def drift(  # noqa: PLR0917 - one parameter per click option
    app: str,
    namespace: str,
    application_files: tuple[Path, ...],
    object_files: tuple[Path, ...],
    output: str,
    kubeconfig: str | None,
    context: str | None,
    max_objects: int,
) -> None:
    """Explain Application APP's drift: its OutOfSync objects, and for live drift (the synced revision is
    the desired one) the fields managers other than Argo CD's changed after the last sync, with the
    live value and the value Argo CD applied.

    Exit 0 when no drift is attributed, 2 when some is, 1 on errors.
    """
    offline = bool(application_files or object_files)
    if offline and (kubeconfig or context):
        raise FindingsUsageError("--application/--objects read files only: drop --kubeconfig/--context")
    if object_files and not application_files:
        raise FindingsUsageError("--objects needs --application (the Application says what is OutOfSync)")
    notes: list[str] = []
    try:
        if offline:
            found = files.application(application_files, app, namespace)
            r = report(found, files.objects(object_files, to_read(found, max_objects)), max_objects)
        else:
            r, notes = live_report(
                connect(KubeSettings(kubeconfig=kubeconfig, context=context)), namespace, app, max_objects
            )
    except LifecycleError as exc:
        for line in exc.lines():
            click.echo(f"error: {line}", err=True)
        sys.exit(USAGE_EXIT)
    sys.stdout.write(render(r, output))
    for note in notes:
        click.echo(f"note: {note}", err=True)
    sys.exit(EXIT_DRIFT if r.attributed else 0)
