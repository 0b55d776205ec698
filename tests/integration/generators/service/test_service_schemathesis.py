"""schemathesis (its CLI, every check) against the live service's /openapi.json: generated valid and
invalid requests, zero server errors, and every answer conforms to the documented statuses, content
types and schemas; schema-valid requests are accepted and schema-violating ones rejected."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import TOKEN, LiveService

SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"


def _run(service: LiveService, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [str(SCHEMATHESIS), "run", f"{service.url}/openapi.json", "--workers", "1", "--seed", "4711", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=540, cwd=cwd, check=False)


# schemathesis sends many inputs for the same ApplicationSet, and the mass-drop guard answers the ones that
# would lose clusters with its designed 503, which schemathesis counts as a server error: the guard is off
# here (its answers are tested in tests/unit/generators/service/test_service_guard.py and test_service_appset_eval.py)
GUARD_OFF = pytest.mark.parametrize("live_service", [{"max_drop_percent": 100.0}], indirect=True)


@GUARD_OFF
def test_every_check_passes_with_credentials(live_service: LiveService, tmp_path: Path) -> None:
    result = _run(
        live_service, tmp_path, "--checks", "all", "--max-examples", "100", "-H", f"Authorization: Bearer {TOKEN}"
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "0 generated" not in result.stdout
    # the table: execute, clusters, rollouts, healthz, readyz, metrics, /
    assert "Operations:       7 selected / 7 total" in result.stdout


def test_no_server_error_without_credentials(live_service: LiveService, tmp_path: Path) -> None:
    result = _run(
        live_service, tmp_path, "--checks", "not_a_server_error,status_code_conformance", "--max-examples", "25"
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
