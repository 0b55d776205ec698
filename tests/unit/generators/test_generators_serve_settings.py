"""The settings of ``generator serve`` read from flag text: percentages, the listen address, the HMAC secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from argocd_lifecycle.errors import ConfigError, UsageError
from argocd_lifecycle.generators.settings import parse_listen, parse_percent, receiver_secret


@pytest.mark.parametrize(("text", "value"), [("90", 0.9), ("100%", 1.0), ("0", 0.0)])
def test_parse_percent(text: str, value: float) -> None:
    assert parse_percent(text, where="--min-nodes-ready") == value


@pytest.mark.parametrize("text", ["x", "101", "-1"])
def test_parse_percent_rejects(text: str) -> None:
    with pytest.raises(UsageError, match="--min-nodes-ready"):
        parse_percent(text, where="--min-nodes-ready")


def test_a_bare_port_listens_on_loopback_only() -> None:
    assert parse_listen(":8080") == ("127.0.0.1", 8080)
    assert parse_listen("127.0.0.1:9") == ("127.0.0.1", 9)
    with pytest.raises(UsageError, match="--listen"):
        parse_listen("127.0.0.1")


def test_receiver_secret_is_read_only_with_a_url_and_stripped(tmp_path: Path) -> None:
    secret = tmp_path / "hmac"
    secret.write_bytes(b"  s3cr3t\n")
    assert receiver_secret(secret, "http://127.0.0.1:1/v1/events/lifecycle") == b"s3cr3t"
    assert receiver_secret(None, "") == b""
    with pytest.raises(UsageError, match="--receiver-url needs --receiver-secret-file"):
        receiver_secret(None, "http://127.0.0.1:1/v1/events/lifecycle")


@pytest.mark.parametrize(("content", "message"), [(None, "No such file"), (b" \n", "the file is empty")])
def test_a_missing_or_empty_secret_file_is_a_config_error_naming_it(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    secret = tmp_path / "hmac"
    if content is not None:
        secret.write_bytes(content)
    with pytest.raises(ConfigError, match=message) as caught:
        receiver_secret(secret, "http://127.0.0.1:1/v1/events/lifecycle")
    assert str(secret) in caught.value.message and "--receiver-secret-file" in caught.value.message


def test_the_external_secret_is_optional_and_named_when_bad(tmp_path: Path) -> None:
    url, flag = "http://127.0.0.1:1/v1/events/lifecycle", "--receiver-external-secret-file"
    assert receiver_secret(None, url, flag) == b""  # held answers are then not posted
    secret = tmp_path / "external"
    secret.write_bytes(b"\n")
    with pytest.raises(ConfigError, match=f"{flag} {secret}: the file is empty"):
        receiver_secret(secret, url, flag)


def test_serve_listens_on_loopback_unless_told_and_takes_several_addresses() -> None:
    from argocd_lifecycle.generators.cli import serve

    assert serve.make_context("serve", []).params["listen"] == ("127.0.0.1:8080",)
    params = serve.make_context("serve", ["--listen", "10.1.2.3:8080", "--listen", "127.0.0.1:8080"]).params
    assert params["listen"] == ("10.1.2.3:8080", "127.0.0.1:8080")
