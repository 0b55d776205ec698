"""The `plugin generate` pipeline: settings -> transform plan -> render -> parse -> transforms -> guards
-> one YAML stream. Everything the settings can get wrong fails before a tool runs."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from argocd_lifecycle.errors import LifecycleError, RenderError
from argocd_lifecycle.plugin import guards, masking
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.render import start as render
from argocd_lifecycle.plugin.settings import PluginSettings
from argocd_lifecycle.plugin.stream.manifest import Manifest
from argocd_lifecycle.plugin.transforms import plan as transforms
from argocd_lifecycle.yaml import yamlio


@dataclass(frozen=True)
class Result:
    source_type: str
    manifests: list[Manifest]
    text: str


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
    rendering = render.start(settings, diagnostics)
    source_type, manifests = rendering.source_type, rendering.manifests()
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
