"""Service settings: the token file (rotation, constant-time match, no leaks) and the start-up checks."""

from __future__ import annotations

import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from argocd_lifecycle.errors import ConfigError, UsageError
from argocd_lifecycle.generators.service.settings import ServiceSettings, service_options
from argocd_lifecycle.http.tokens import TokenFile
from argocd_lifecycle.model import Phase


def _write(path: Path, text: str) -> None:
    """Replace the file the way a Secret volume does: a new inode swapped in."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def test_token_is_trimmed_and_compared(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("  s3cret-value\n")
    token = TokenFile(path)
    assert token.matches("s3cret-value")
    assert not token.matches("s3cret-valu")
    assert not token.matches("")
    assert "s3cret" not in repr(token)


def test_rotated_token_file_is_used_without_restart(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("old-token")
    token = TokenFile(path)
    _write(path, "new-token\n")
    assert token.matches("new-token")
    assert not token.matches("old-token")


def test_token_file_vanishing_or_emptied_keeps_the_last_good_token(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("good-token")
    token = TokenFile(path)
    path.unlink()
    assert token.matches("good-token")
    _write(path, "\n")
    assert token.matches("good-token")
    _write(path, "next-token")
    assert token.matches("next-token")


def test_unreadable_or_empty_token_file_refuses_to_start(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the token file"):
        TokenFile(tmp_path / "missing")
    (tmp_path / "empty").write_text(" \n")
    with pytest.raises(ConfigError, match="the token file is empty"):
        TokenFile(tmp_path / "empty")


def test_from_options_requires_a_token_unless_insecure(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"refusing to serve getparams\.execute without a token"):
        ServiceSettings.from_options(token_file=None)
    (tmp_path / "t").write_text("tok")
    with pytest.raises(UsageError, match="exclude each other"):
        ServiceSettings.from_options(token_file=tmp_path / "t", insecure_no_auth=True)
    with pytest.raises(UsageError, match="--max-drop-percent: 120 is not between 0 and 100"):
        ServiceSettings.from_options(token_file=tmp_path / "t", max_drop_percent=120)
    with pytest.raises(UsageError, match="a token file is required"):
        ServiceSettings(token=None)
    settings = ServiceSettings.from_options(token_file=None, insecure_no_auth=True)
    assert settings.token is None
    assert (settings.max_staleness, settings.max_drop_percent, settings.max_body_bytes) == (60.0, 50.0, 1 << 20)


def test_settings_repr_has_no_token(tmp_path: Path) -> None:
    (tmp_path / "t").write_text("very-secret-token")
    settings = ServiceSettings.from_options(token_file=tmp_path / "t")
    assert "very-secret" not in repr(settings)


def test_click_options_feed_from_options(tmp_path: Path) -> None:
    (tmp_path / "t").write_text("tok")
    (tmp_path / "p.yaml").write_text("Pending: {syncEnabled: true}\n")
    seen: list[ServiceSettings] = []

    @click.command()
    @service_options
    def serve(**options: object) -> None:
        seen.append(ServiceSettings.from_options(**options))  # type: ignore[arg-type]

    args = [
        "--token-file",
        str(tmp_path / "t"),
        "--max-staleness",
        "5",
        "--max-drop-percent",
        "25",
        "--policy-file",
        str(tmp_path / "p.yaml"),
    ]
    result = CliRunner().invoke(serve, args)
    assert result.exit_code == 0, result.output
    assert (seen[0].max_staleness, seen[0].max_drop_percent) == (5.0, 25.0)
    assert seen[0].policy.rule(Phase.PENDING).sync_enabled is True
    bad = CliRunner().invoke(serve, ["--insecure-no-auth", "--max-drop-percent", "101"])
    assert bad.exit_code == 2
    assert "--max-drop-percent" in bad.output
