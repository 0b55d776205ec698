"""The console script. Argo CD runs `argocd-lifecycle plugin generate` for every render, so that exact
invocation skips importing click (about 30 ms of a ~100 ms cold start); everything else goes
through the click CLI in argocd_lifecycle.app.cli. Inside the import fence (docs/architecture.md)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn


def main() -> None:
    if sys.argv[1:] == ["plugin", "generate"]:
        from argocd_lifecycle.plugin.generate import run_command

        _leave(run_command(Path("."), None))
    from argocd_lifecycle.app.cli import main as cli_main

    cli_main()


def _leave(code: int) -> NoReturn:
    """End a render's process without tearing the interpreter down. Freeing every module and object
    costs about a tenth of a render (docs/benchmarks.md), and a render's process holds nothing that
    needs it: its files are closed, temporary folders removed and tools reaped, and it starts no thread
    and registers no exit handler."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # the reader went away: the output did not arrive
        code = code or 1
    os._exit(code)
