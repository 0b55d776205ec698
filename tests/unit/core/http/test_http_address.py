"""``--listen HOST:PORT``: IPv4, bracketed IPv6, an optional default host, and one message for the rest."""

from __future__ import annotations

import pytest

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.http.address import parse_listen


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("127.0.0.1:8080", ("127.0.0.1", 8080)), ("[::1]:9090", ("::1", 9090)), ("localhost:1", ("localhost", 1))],
)
def test_host_and_port(text: str, parsed: tuple[str, int]) -> None:
    assert parse_listen(text) == parsed


def test_an_empty_host_takes_the_default_when_there_is_one() -> None:
    assert parse_listen(":8080", default_host="0.0.0.0") == ("0.0.0.0", 8080)
    with pytest.raises(UsageError):
        parse_listen(":8080")


@pytest.mark.parametrize("bad", ["8080", "host:", "host:0", "host:65536", "host:80a", "host:-1", ""])
def test_bad_addresses_name_the_option(bad: str) -> None:
    with pytest.raises(UsageError, match=r"^--bind .*: expected HOST:PORT, such as 127\.0\.0\.1:8080$"):
        parse_listen(bad, option="--bind")
