"""Bearer tokens: only the ``Bearer`` scheme counts, comparison is constant-time on bytes, and the token file
is re-read on rotation without ever losing the last good token."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.http.tokens import TokenFile, presented_bearer, same_token


@pytest.mark.parametrize(
    ("header", "token"),
    [
        ("Bearer abc", "abc"),
        ("bearer   abc  ", "abc"),
        ("BEARER abc", "abc"),
        ("Basic dXNlcjpwYXNz", None),
        ("Bearer", None),
        ("Bearer    ", None),
        ("", None),
        (None, None),
    ],
)
def test_presented_bearer(header: str | None, token: str | None) -> None:
    assert presented_bearer(header) == token


def test_same_token() -> None:
    assert same_token("s3cret", b"s3cret")
    assert not same_token("s3cre", b"s3cret")
    assert not same_token("", b"s3cret")
    assert same_token("k\u00e9y", "k\u00e9y".encode())
    assert not same_token("\udcff", b"\xff\xff")  # undecodable input compares, and fails, without raising


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
