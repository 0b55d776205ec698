"""``argocd-lifecycle scan`` and ``convert``: deprecated/removed Kubernetes APIs in manifest files.

scan exit codes: 0 clean, 2 only deprecated APIs found, 3 removed APIs found, 1 errors (bad input,
unreadable files, bad flags). convert: 0 done, 1 error (nothing written), 2 usage error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.findings_cli import FindingsCommand, kube_version

FORMATS = ("table", "json", "markdown")


_target_option = click.option(
    "--target-version",
    "-t",
    required=True,
    callback=kube_version,
    help="Kubernetes version to check against (1.29, v1.29.3, 1.29+).",
)
_additional_option = click.option(
    "--additional-versions",
    "-f",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Extra rules (same shape as the built-in table, or pluto's versions file) for your own CRDs.",
)


def _fail(exc: LifecycleError, code: int) -> None:
    for line in exc.lines():
        click.echo(f"error: {line}", err=True)
    sys.exit(code)


def _render_sources(paths: tuple[str, ...], target: tuple[int, int]) -> list[tuple[str, list[Any]]]:
    """Render each application folder as the plugin would; (label, [(document, object)])."""
    from argocd_lifecycle.plugin.diagnostics import Diagnostics
    from argocd_lifecycle.plugin.render.start import start
    from argocd_lifecycle.plugin.settings import PluginSettings
    from argocd_lifecycle.plugin.validate import api_versions_at

    out = []
    environ = {k: v for k, v in os.environ.items() if k.startswith(("ARGOCD_", "KUBE_API_VERSIONS"))}
    if "KUBE_API_VERSIONS" not in environ:
        # what a cluster of that version serves, so Helm's Capabilities checks render as they would there
        environ["KUBE_API_VERSIONS"] = ",".join(api_versions_at(target))
    for raw in paths:
        app_dir = Path(raw)
        env = {"ARGOCD_APP_NAME": app_dir.resolve().name, **environ}
        settings = PluginSettings.from_environ(env, app_dir=app_dir, kube_version=f"{target[0]}.{target[1]}")
        rendering = start(settings, Diagnostics())
        for m in rendering.manifests():
            label = f"{raw.rstrip('/')}/{m.source}" if rendering.source_type == "plain" else f"{raw} ({m.source})"
            out.append((label, [(m.index, m.obj)]))
    return out


@click.command(cls=FindingsCommand)
@click.argument("paths", nargs=-1, required=True)
@_target_option
@_additional_option
@click.option("--output", "-o", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option(
    "--render", is_flag=True, help="PATHs are plugin application folders: render them first (Helm, Kustomize)."
)
def scan(
    paths: tuple[str, ...],
    target_version: tuple[int, int],
    additional_versions: Path | None,
    output: str,
    render: bool,
) -> None:
    """Report objects using API versions deprecated or removed in the target Kubernetes version.

    Exit 0 when clean, 2 when only deprecated APIs were found, 3 when removed ones were, 1 on errors.
    """
    from argocd_lifecycle.deprecations.knowledge import knowledge_base
    from argocd_lifecycle.plugin.rewrite import scan as s
    from argocd_lifecycle.plugin.rewrite.files.scan_files import scan_paths

    try:
        kb = knowledge_base(additional_versions)
        scanner = s.Scanner(kb, target_version)
        if render:
            findings: list[s.Finding] = []
            errors: list[str] = []
            objects = 0
            for label, docs in _render_sources(paths, target_version):
                for document, obj in docs:
                    objects += 1
                    findings.extend(scanner.check_object(label, document, obj))
        else:
            findings, objects, errors = scan_paths(list(paths), scanner)
    except LifecycleError as exc:
        _fail(exc, s.EXIT_ERROR)
        return
    if output == "json":
        text = s.render_json(findings, target_version, data_version=kb.data_version, objects=objects, errors=errors)
    elif output == "markdown":
        text = s.render_markdown(findings, target_version)
    else:
        text = s.render_table(findings, target_version)
    sys.stdout.write(text)
    for line in errors:
        click.echo(f"error: {line}", err=True)
    sys.exit(s.EXIT_ERROR if errors else s.exit_code(findings))


@click.command()
@click.argument("paths", nargs=-1, required=True)
@_target_option
@_additional_option
@click.option(
    "--on-removed",
    type=click.Choice(["fail", "drop", "keep"]),
    default="fail",
    show_default=True,
    help="Objects whose API was removed without a replacement: fail, drop them (with a warning), or keep them.",
)
@click.option("--validate", is_flag=True, help="Validate every output object strictly (kubernetes-validate schemas).")
@click.option("--in-place", "-i", is_flag=True, help="Rewrite the files instead of printing the stream.")
@click.option("--upgrade-to", callback=kube_version, help="Also serve this next version (a cluster being upgraded).")
@click.option("--rewrite-deprecated", is_flag=True, help="Also move objects off deprecated-but-served versions.")
@click.option(
    "--upgrade-hpa-v1",
    is_flag=True,
    help="Rewrite autoscaling/v1 HPAs (and their alpha annotations) to autoscaling/v2.",
)
@click.option("--verbose", "-v", is_flag=True, help="Also print what was rewritten (notes).")
def convert(  # noqa: PLR0917 - one parameter per click option
    paths: tuple[str, ...],
    target_version: tuple[int, int],
    additional_versions: Path | None,
    on_removed: str,
    validate: bool,
    in_place: bool,
    upgrade_to: tuple[int, int] | None,
    rewrite_deprecated: bool,
    upgrade_hpa_v1: bool,
    verbose: bool,
) -> None:
    """Print the manifests converted for the target Kubernetes version (or rewrite them in place)."""
    from argocd_lifecycle.deprecations.knowledge import knowledge_base
    from argocd_lifecycle.errors import RenderError
    from argocd_lifecycle.plugin.rewrite.engine import Rewriter
    from argocd_lifecycle.plugin.rewrite.files.convert_files import convert_paths, join_documents
    from argocd_lifecycle.plugin.rewrite.policy import OnRemoved, Policy
    from argocd_lifecycle.plugin.rewrite.target import Target

    try:
        target = Target.of(target_version, upgrade_to=upgrade_to, rewrite_deprecated=rewrite_deprecated)
        rewriter = Rewriter(knowledge_base(additional_versions), target, Policy(OnRemoved(on_removed), upgrade_hpa_v1))
        results = convert_paths(list(paths), rewriter, keep_objects=validate)
        if validate and target.current is not None:
            from argocd_lifecycle.plugin.validate import refuse_invalid  # jsonschema: --validate only

            objects = [o for r in results for o in r.objects]
            refuse_invalid(objects, (v for v in (target.current, target.upgrade_to) if v is not None))
        for line in rewriter.warnings:
            click.echo(f"warning: {line}", err=True)
        if verbose:
            for line in rewriter.infos:
                click.echo(f"note: {line}", err=True)
        if rewriter.problems:
            raise RenderError(rewriter.problems[0], problems=rewriter.problems)
        if in_place:
            from argocd_lifecycle.plugin.rewrite.files.in_place import write_in_place  # tempfile: --in-place only

            written = write_in_place(results)
            click.echo(f"converted {rewriter.converted} object(s), rewrote {written} file(s)", err=True)
        else:
            sys.stdout.write(join_documents([r.text for r in results if r.text.strip()]))
    except LifecycleError as exc:
        _fail(exc, 1 if exc.exit_code != 2 else 2)
