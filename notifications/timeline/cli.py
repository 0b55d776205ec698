"""``argocd-lifecycle timeline APP``: what happened to an application, in order, to the second."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path

import click

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.kube.client import KubeSettings, connect
from argocd_lifecycle.kube.names import is_namespace, is_object_name
from argocd_lifecycle.notifications.timeline import render_json, render_text
from argocd_lifecycle.notifications.timeline.build import Gathered, Request, build
from argocd_lifecycle.notifications.timeline.destination import connector
from argocd_lifecycle.notifications.timeline.files import gather, read_files
from argocd_lifecycle.notifications.timeline.live import gather_live
from argocd_lifecycle.notifications.timeline.model import Timeline
from argocd_lifecycle.times import parse_duration

FORMATS = ("table", "json", "markdown", "svg")
LIVE_DEFAULT_SINCE = "2h"
#: the longest --since: far beyond what Kubernetes keeps, and still a date when counted back from now
LONGEST_SINCE = 100 * 365 * 86400.0


def parse_since(text: str) -> timedelta:
    """``--since``: a duration longer than zero (2h, 90m, 1h30m, 7d), a century at most."""
    try:
        seconds = parse_duration(text, longest=LONGEST_SINCE)
    except ValueError as exc:
        raise UsageError(f"--since {exc}") from exc
    if seconds <= 0:
        raise UsageError(f"--since {text!r} must be longer than zero")
    return timedelta(seconds=seconds)


def render(timeline: Timeline, output: str, tz: tzinfo | None) -> str:
    if output == "json":
        return render_json.render(timeline)
    if output == "svg":
        try:
            from argocd_lifecycle.notifications.timeline import render_svg
        except ModuleNotFoundError as exc:  # matplotlib is the optional `svg` extra, not in the image
            if exc.name != "matplotlib":
                raise
            raise UsageError("-o svg needs matplotlib: pip install 'argocd-lifecycle[svg]'") from None

        return render_svg.render(timeline, tz)
    return render_text.markdown(timeline, tz) if output == "markdown" else render_text.table(timeline, tz)


def _gather_live(request: Request, kubeconfig: str | None, context: str | None) -> Gathered:
    settings = KubeSettings(kubeconfig=kubeconfig, context=context)
    return gather_live(connect(settings), request, connector(settings))


def application_ref(app: str, namespace: str) -> tuple[str, str]:
    """(namespace, name) of APP, which the ``argocd`` CLI's way may qualify: ``team-a/web`` is Application
    ``web`` of namespace ``team-a`` (Argo CD's applications in any namespace), ``web`` one of ``namespace``."""
    space, _, name = app.rpartition("/") if "/" in app else (namespace, "", app)
    if not is_namespace(space):
        raise click.BadParameter(f"{space[:80]!r} is not a namespace name (a DNS-1123 label)", param_hint="APP")
    if not is_object_name(name):
        raise click.BadParameter(f"{name[:80]!r} is not an Application name (a DNS-1123 subdomain)", param_hint="APP")
    return space, name


@click.command("timeline")
@click.argument("app")
@click.option(
    "-n",
    "--namespace",
    default="argocd",
    show_default=True,
    help="Namespace of the Application, and Argo CD's (where cluster Secrets are) for APP given as NAMESPACE/NAME.",
)
@click.option(
    "--since",
    metavar="DURATION",
    help="Keep what happened in this window (2h, 90m, 1h30m, 7d). Live: back from now, default "
    f"{LIVE_DEFAULT_SINCE} (the Events' usual lifetime). Files: back from the newest entry, default no window.",
)
@click.option(
    "--include-resources",
    is_flag=True,
    help="Add the Events of the app's managed resources (and the Pods/ReplicaSets they create).",
)
@click.option("-o", "--output", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option(
    "--from-file",
    "from_files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, readable=True, path_type=Path),
    help="Read `kubectl get events|application|secret -o json` output instead of a cluster (repeatable).",
)
@click.option("--kubeconfig", type=click.Path(exists=True, dir_okay=False), help="Live: kubeconfig file.")
@click.option("--context", help="Live: kubeconfig context.")
@click.option("--utc", is_flag=True, help="Print times in UTC instead of the local time zone.")
def timeline(
    *,
    app: str,
    namespace: str,
    since: str | None,
    include_resources: bool,
    output: str,
    from_files: tuple[Path, ...],
    kubeconfig: str | None,
    context: str | None,
    utc: bool,
) -> None:
    """Rebuild what happened to Application APP (NAME, or NAMESPACE/NAME as the argocd CLI writes an
    Application in another namespace) from Kubernetes Events and Argo CD's status.

    Lanes: Operation (syncs, actions, deployments from status.history), Sync, Health, Resource
    (the app's objects, with --include-resources), Cluster (argocd-lifecycle's Cluster* Events
    on the destination's cluster Secret) and Rollout (the waves of the owning ApplicationSet's
    rollout). A merged Event (count > 1) is a span whose inner timestamps Kubernetes did not keep.
    """
    if from_files and (kubeconfig or context):
        raise click.UsageError("--from-file reads files only: drop --kubeconfig/--context")
    since_text = since if since is not None else (None if from_files else LIVE_DEFAULT_SINCE)
    try:
        window = parse_since(since_text) if since_text else None
    except UsageError as exc:
        raise click.BadParameter(str(exc).removeprefix("--since "), param_hint="--since") from exc
    app_namespace, name = application_ref(app, namespace)
    request = Request(
        app=name,
        namespace=app_namespace,
        argocd_namespace=namespace,
        include_resources=include_resources,
        since=window,
        since_text=since_text,
        now=None if from_files else datetime.now(UTC),
    )
    gathered = gather(read_files(from_files), request) if from_files else _gather_live(request, kubeconfig, context)
    result = build(request, gathered)
    text = render(result, output, UTC if utc else None)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    click.echo(text, nl=False)
