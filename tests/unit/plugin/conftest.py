from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from argocd_lifecycle.app.cli import cli
from tests.unit.plugin.helpers import Run, RunPlugin


@pytest.fixture
def run_plugin(monkeypatch: pytest.MonkeyPatch) -> RunPlugin:
    """Run `plugin generate` in-process with a clean Argo CD environment plus ``env``."""

    def run(app_dir: Path, env: dict[str, str] | None = None, *args: str) -> Run:
        for key in list(os.environ):
            if key.startswith(("ARGOCD_", "KUBE_", "PARAM_")):
                monkeypatch.delenv(key)
        runner = CliRunner()
        result = runner.invoke(
            cli, ["plugin", "generate", "--path", str(app_dir), *args], env=env or {}, catch_exceptions=False
        )
        return Run(result.exit_code, result.stdout, result.stderr)

    return run
