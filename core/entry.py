"""The console script. Argo CD runs `argocd-lifecycle plugin generate` for every render, so that exact
invocation skips importing click (about 30 ms of a ~100 ms cold start); everything else goes
through the click CLI in argocd_lifecycle.cli."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

# Named, not imported: core never imports a part statically (the import contract in tests/).
_FAST_PATH = "argocd_lifecycle.plugin.generate"


def main() -> None:
    if sys.argv[1:] == ["plugin", "generate"]:
        sys.exit(importlib.import_module(_FAST_PATH).run_command(Path("."), None))
    from argocd_lifecycle.cli import main as cli_main

    cli_main()
