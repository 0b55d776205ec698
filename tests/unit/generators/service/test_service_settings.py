"""Service settings: the start-up checks and the flags (the token file itself: tests/unit/core/http)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.service.settings import ServiceSettings, service_options
from argocd_lifecycle.model import Phase


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
