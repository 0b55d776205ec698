"""The verbs whose exit 2 is a finding: usage errors exit 1, and release options give (major, minor)."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from argocd_lifecycle.findings_cli import FindingsCommand, kube_version


@click.command(cls=FindingsCommand)
@click.option("--to", "target", required=True, callback=kube_version)
@click.option("--also", callback=kube_version)
def verb(target: tuple[int, int], also: tuple[int, int] | None) -> None:
    click.echo(f"{target} {also}")


@pytest.mark.parametrize(("value", "key"), [("1.29", (1, 29)), ("v1.29.3", (1, 29)), ("1.29+", (1, 29))])
def test_a_release_is_its_major_and_minor(value: str, key: tuple[int, int]) -> None:
    result = CliRunner().invoke(verb, ["--to", value])
    assert (result.exit_code, result.output) == (0, f"{key} None\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--to", "one.two"], "Invalid value for '--to'"),
        (["--to", "1.29", "--also", "x"], "Invalid value for '--also'"),
        ([], "Missing option '--to'"),
        (["--to", "1.29", "--bogus"], "--bogus"),
    ],
)
def test_usage_errors_exit_1_not_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(verb, args)
    assert result.exit_code == 1
    assert message in result.output
