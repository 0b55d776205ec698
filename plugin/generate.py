"""The `plugin generate` pipeline: settings -> transform plan -> render -> parse -> transforms -> guards
-> one YAML stream. Everything the settings can get wrong fails before a tool runs."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from argocd_lifecycle import yamlio
from argocd_lifecycle.errors import LifecycleError, RenderError
from argocd_lifecycle.plugin import guards, masking
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.manifest import Manifest
from argocd_lifecycle.plugin.render import detect as detect_source
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.plugin.transforms import plan as transforms
from argocd_lifecycle.plugin.walk import check_symlinks

if TYPE_CHECKING:
    from argocd_lifecycle.plugin.render.tool import RunningTool


@dataclass(frozen=True)
class Result:
    source_type: str
    manifests: list[Manifest]
    text: str


def _tool_output(
    running: RunningTool, source: str, settings: PluginSettings, diagnostics: Diagnostics
) -> list[Manifest]:
    with running:
        # imported while the tool runs, as the renderer's own checks that need not hold it back run
        from argocd_lifecycle.plugin import passthrough

        text = running.output()
    manifests = passthrough.read_stream(text, source, limits=settings.limits)
    diagnostics.secrets.add(masking.from_documents(passthrough.secret_objects(manifests)))
    return manifests


def render_manifests(settings: PluginSettings, diagnostics: Diagnostics | None = None) -> tuple[str, list[Manifest]]:
    """The objects of the app folder, as its source type renders them; Secret values found on the way
    are added to ``diagnostics``' masks as soon as they are read."""
    diagnostics = diagnostics or Diagnostics()
    check_symlinks(settings.app_dir)
    source_type = detect_source(settings.app_dir)
    if source_type == "kustomize":
        from argocd_lifecycle.plugin.render import kustomize

        return source_type, _tool_output(
            kustomize.start(settings, diagnostics), "kustomize build", settings, diagnostics
        )
    if source_type == "helm":
        from argocd_lifecycle.plugin.render import helm

        return source_type, _tool_output(helm.start(settings, diagnostics), "helm template", settings, diagnostics)
    from argocd_lifecycle.plugin.render import files

    return source_type, files.render(settings, diagnostics)


def document_text(m: Manifest) -> str:
    """One document of the output: as the tool emitted it unless a transform changed it."""
    return "---\n" + (m.text if m.text is not None else yamlio.dump(m.obj))


def check_output_size(text: str, limit: int) -> None:
    # characters are at most 4 bytes each: encode only when the text could be over
    if len(text) * 4 > limit and len(text.encode("utf-8", "surrogatepass")) > limit:
        raise RenderError(f"the output is over {yamlio.format_size(limit)}; refused (parameter maxOutputBytes)")


def generate(settings: PluginSettings, diagnostics: Diagnostics) -> Result:
    """Build the whole output in memory; raise RenderError (nothing printed) on any problem."""
    diagnostics.secrets.add(settings.secrets)
    steps = transforms.plan(settings)
    source_type, manifests = render_manifests(settings, diagnostics)
    manifests = transforms.run(steps, manifests, diagnostics)
    guards.check_duplicates(manifests)
    guards.check_not_empty(manifests, allow_empty=settings.parameters.allow_empty)
    text = "".join(document_text(m) for m in manifests)
    check_output_size(text, settings.parameters.max_output_bytes)
    return Result(source_type, manifests, text)


def _fail(diagnostics: Diagnostics, lines: list[str]) -> int:
    out = [*diagnostics.rendered(), *("error: " + diagnostics.clean(line) for line in lines)]
    sys.stderr.write("".join(line + "\n" for line in out))
    return 1


def run_command(path: Path, kube_version: str | None) -> int:
    """`plugin generate` as a process: objects on stdout only on success, one line per problem on
    stderr, exit 1 on any failure (Argo CD only sees "non-zero"). Needs no click: see core/entry.py."""
    diagnostics = Diagnostics()
    # masks from the environment before anything else can fail and print
    diagnostics.secrets.add(masking.from_environ(os.environ))
    try:
        settings = PluginSettings.from_environ(os.environ, app_dir=path, kube_version=kube_version)
        result = generate(settings, diagnostics)
    except LifecycleError as exc:
        return _fail(diagnostics, exc.lines())
    except RecursionError:
        return _fail(diagnostics, ["refused: the input is nested too deeply to process"])
    except MemoryError:
        return _fail(diagnostics, ["refused: the render needs more memory than it may use"])
    except Exception as exc:  # a bug must still end as one line, never a traceback with values in it
        return _fail(diagnostics, [f"internal error ({type(exc).__name__}): {exc}"])
    sys.stderr.write("".join(line + "\n" for line in diagnostics.rendered()))
    try:
        sys.stdout.write(result.text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away before the end: the render did not arrive
        return 1
    return 0
