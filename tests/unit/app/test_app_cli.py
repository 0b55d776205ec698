"""The root command group: typed exit codes, one-line errors, no tracebacks, every command registered."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from argocd_lifecycle.app import cli as root
from argocd_lifecycle.errors import ConfigError, UsageError


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "argocd_lifecycle.app", *args], capture_output=True, text=True, check=False, timeout=60
    )


def test_version_and_help() -> None:
    assert run("--version").stdout.strip() == "argocd-lifecycle, version 0.1.0"
    help_text = run("--help").stdout
    assert "plugin  " in help_text and "Config-management plugin commands" in help_text


def test_unknown_command_is_usage_error() -> None:
    result = run("nope")
    assert result.returncode == 2 and "No such command 'nope'" in result.stderr and result.stdout == ""


@pytest.fixture
def boom(monkeypatch: pytest.MonkeyPatch) -> None:
    @click.command()
    @click.argument("kind")
    def explode(kind: str) -> None:
        if kind == "usage":
            raise UsageError("--thing: missing")
        if kind == "config":
            raise ConfigError("bad config", problems=["a.yaml: first", "b.yaml: second"])
        raise RuntimeError("token=abc123 leaked?")

    monkeypatch.setitem(root.COMMANDS, "explode", lambda: explode)


@pytest.mark.parametrize(
    ("kind", "code", "stderr"),
    [
        ("usage", 2, "error: --thing: missing\n"),
        ("config", 1, "error: a.yaml: first\nerror: b.yaml: second\n"),
        (
            "bug",
            1,
            "error: internal error: RuntimeError: token=*** leaked? (set ARGOCD_LIFECYCLE_DEBUG=1 for a traceback)\n",
        ),
    ],
)
def test_errors_become_lines_and_exit_codes(
    boom: None, kind: str, code: int, stderr: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        root.main(["explode", kind])
    assert exc.value.code == code
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", stderr)


@pytest.mark.parametrize("name", sorted(root.COMMANDS))
def test_every_registered_command_imports(name: str) -> None:
    command = root.cli.get_command(click.Context(root.cli), name)
    assert isinstance(command, click.Command), f"{name}: {root.COMMANDS[name]} does not import"
