"""`argocd-lifecycle receiver serve` refuses bad input with one line on stderr and the right code."""

from __future__ import annotations

from pathlib import Path

import pytest

from argocd_lifecycle.app.cli import main
from tests.unit.notifications.receiver.conftest import BASIC, LIFECYCLE_SECRET, TOKEN, write_config


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        main(["receiver", "serve", *args])
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


def test_missing_config_file(tmp_path: Path, capsys) -> None:
    code, out, err = run(["--config", str(tmp_path / "nope.yaml")], capsys)
    assert code == 1 and out == ""
    assert err == f"error: cannot read receiver config {tmp_path / 'nope.yaml'}: No such file or directory\n"


def test_bad_listen_is_a_usage_error(tmp_path: Path, capsys) -> None:
    code, _, err = run(["--config", str(write_config(tmp_path, BASIC)), "--listen", "everywhere"], capsys)
    assert code == 2
    assert err == "error: --listen 'everywhere': expected HOST:PORT, such as 127.0.0.1:8080\n"


def test_bad_state_url(tmp_path: Path, capsys) -> None:
    code, _, err = run(["--config", str(write_config(tmp_path, BASIC)), "--state", "postgres://x"], capsys)
    assert code == 1
    assert err == "error: --state 'postgres://x': use sqlite:///path/file.db or redis://host:port/db\n"


def test_bad_config_never_prints_secrets(tmp_path: Path, capsys) -> None:
    path = write_config(tmp_path, BASIC.replace("type: slack", "type: pager"))
    code, _, err = run(["--config", str(path)], capsys)
    assert code == 1 and "receivers[0].type: must be one of" in err
    assert TOKEN not in err and LIFECYCLE_SECRET.decode() not in err
