"""core/options.py: one declaration per setting builds its click option (default, range, help) and checks
the same range on values that do not come through click."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.options import Option, Options
from argocd_lifecycle.times import format_duration

TABLE = Options(
    Option("--max-drop-percent", type=float, default=50.0, low=0, high=100, help="Share of clusters."),
    Option("--drop-settle", type=float, default=5.0, low=0, high=600, unit="seconds"),
    Option("--max-staleness", type=float, default=60.0, low=0),
    Option("--timeout", type=float, default=15.0, low=0, low_open=True),
    Option("--namespace", name="namespaces", multiple=True, metavar="NS"),
    Option("--interval", default=10.0, shown=format_duration, help="Between probes."),
    Option("--on/--off", default=False),
)


def run(*args: str) -> tuple[int, dict[str, object], str]:
    seen: dict[str, object] = {}

    @click.command()
    @TABLE.decorate
    def command(**options: object) -> None:
        seen.update(options)

    result = CliRunner().invoke(command, list(args))
    return result.exit_code, seen, result.output


def test_the_table_builds_the_options_with_their_defaults() -> None:
    code, seen, _ = run()
    assert code == 0
    assert seen == {
        "max_drop_percent": 50.0,
        "drop_settle": 5.0,
        "max_staleness": 60.0,
        "timeout": 15.0,
        "namespaces": (),
        "interval": "10s",
        "on": False,
    }
    assert list(TABLE) == list(seen)


def test_help_shows_defaults_as_the_flag_takes_them_and_the_range() -> None:
    _, _, out = run("--help")
    assert "[default: 10s]" in out and "0<=x<=100" in out and "Share of clusters." in out and "NS" in out


def test_click_and_check_refuse_the_same_range() -> None:
    assert run("--max-drop-percent", "101")[0] == 2
    assert run("--timeout", "0")[0] == 2
    with pytest.raises(UsageError, match=r"--max-drop-percent: 101 is not between 0 and 100$"):
        TABLE.check({"max_drop_percent": 101.0})
    with pytest.raises(UsageError, match="--drop-settle: 601 is not between 0 and 600 seconds"):
        TABLE.check({"drop_settle": 601.0})
    with pytest.raises(UsageError, match="--max-staleness: -1 is negative"):
        TABLE.check({"max_staleness": -1.0})
    with pytest.raises(UsageError, match="--timeout: 0 must be more than 0"):
        TABLE.check({"timeout": 0.0})
    TABLE.check({"max_drop_percent": 100.0, "drop_settle": 0.0, "unknown": -5})


def test_format_duration_writes_what_parse_duration_reads() -> None:
    assert [format_duration(s) for s in (10.0, 90.0, 60.0, 3600.0, 1209600.0, 0.5)] == [
        "10s",
        "90s",
        "1m",
        "1h",
        "14d",
        "500ms",
    ]
