"""Bearer tokens: only the ``Bearer`` scheme counts, and comparison is constant-time on bytes."""

from __future__ import annotations

import pytest

from argocd_lifecycle.http.tokens import presented_bearer, same_token


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
