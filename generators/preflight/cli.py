"""``argocd-lifecycle preflight CLUSTER --to X.Y``: what upgrading CLUSTER to X.Y would break.

Exit codes, as ``scan``: 0 nothing to do, 2 only deprecated APIs or objects the plugin rewrites at
render, 3 blockers, 1 errors (bad input, an unknown cluster, an unreachable API, bad flags: 2 is taken).
``--fail-on`` moves the threshold: ``blockers`` exits 0 unless something blocks, ``never`` exits 0
unless the preflight could not run.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click

from argocd_lifecycle.deprecations.knowledge import knowledge_base
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.findings_cli import FindingsCommand, kube_version
from argocd_lifecycle.generators.fleet.namespaces import Namespaces
from argocd_lifecycle.generators.preflight import sources
from argocd_lifecycle.generators.preflight.clusters import resolve
from argocd_lifecycle.generators.preflight.evaluate import evaluate
from argocd_lifecycle.generators.preflight.render import FORMATS, render
from argocd_lifecycle.generators.preflight.report import EXIT_ERROR, FailOn, exit_code
from argocd_lifecycle.kube.client import KubeSettings, connect


@click.command("preflight", cls=FindingsCommand)
@click.argument("cluster")
@click.option("--to", "target", required=True, callback=kube_version, help="The release to upgrade to (1.33, v1.33.2).")
@click.option("-o", "--output", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option(
    "--fail-on",
    type=click.Choice([f.value for f in FailOn]),
    default=FailOn.DEPRECATED.value,
    show_default=True,
    help="The least finding that makes the exit code non-zero: deprecated (2 or 3), blockers (3), never.",
)
@click.option(
    "--from-file",
    "from_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Read `kubectl get applications -o json` and `kubectl get secret -o json` output instead of a "
    "cluster (repeatable).",
)
@click.option("-n", "--namespace", default="argocd", show_default=True, help="Argo CD's namespace (live).")
@click.option(
    "--application-namespace",
    "application_namespaces",
    multiple=True,
    metavar="NAMESPACE",
    help="Live: also the Applications of this namespace (repeatable; '*': every namespace), for tenants.",
)
@click.option(
    "--project",
    "projects",
    multiple=True,
    metavar="PROJECT",
    help="Only the Applications of this AppProject (repeatable): one team's report.",
)
@click.option("--kubeconfig", type=click.Path(dir_okay=False), help="Kubeconfig of the management cluster (live).")
@click.option("--context", help="Kubeconfig context (live).")
@click.option(
    "--current-version",
    callback=kube_version,
    help="The cluster's version today (default: the kubernetes-version annotation the generator writes).",
)
@click.option(
    "--additional-versions",
    "-f",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Extra rules for your own CRDs (same shape as the built-in table, or pluto's versions file).",
)
def preflight(  # noqa: PLR0917 - one parameter per click option
    cluster: str,
    target: tuple[int, int],
    output: str,
    fail_on: str,
    from_files: tuple[Path, ...],
    namespace: str,
    application_namespaces: tuple[str, ...],
    projects: tuple[str, ...],
    kubeconfig: str | None,
    context: str | None,
    current_version: tuple[int, int] | None,
    additional_versions: Path | None,
) -> None:
    """Report every object Argo CD deploys to CLUSTER whose API the release --to no longer serves.

    Exit 0 when nothing is to do, 2 for deprecated APIs or objects the plugin rewrites at render only,
    3 when something blocks the upgrade, 1 on errors.
    """
    inputs: sources.Inputs | None = None
    try:
        kb = knowledge_base(additional_versions)
        watched = Namespaces.parse(namespace, application_namespaces)
        if from_files:
            inputs = sources.read_files(from_files)
        else:
            kube = connect(KubeSettings(kubeconfig=kubeconfig, context=context))
            inputs = sources.read_live(kube, namespace, watched)
        ref = resolve(cluster, inputs.secrets, inputs.skipped)
        apps = sources.for_projects(inputs, projects).apps
        report = evaluate(kb, ref, apps, target, current=current_version)
    except LifecycleError as exc:
        for note in inputs.notes if inputs is not None else ():  # the skipped Secret may be why
            click.echo(f"note: {note}", err=True)
        for line in exc.lines():
            click.echo(f"error: {line}", err=True)
        sys.exit(EXIT_ERROR)
    if ref.note:  # in the report itself (its JSON too), not only on stderr
        report = replace(report, notes=(ref.note, *report.notes))
    sys.stdout.write(render(report, output))
    for note in inputs.notes:
        click.echo(f"note: {note}", err=True)
    sys.exit(exit_code(report, FailOn(fail_on)))
