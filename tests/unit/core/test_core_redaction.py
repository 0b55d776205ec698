"""Credentials are masked before any text reaches a log line, stderr or an error message."""

from __future__ import annotations

import pytest

from argocd_lifecycle.redaction import redact


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("Authorization: Bearer abc.def-123", "Authorization: Bearer ***"),
        ("token: s3cr3t", "token: ***"),
        ('{"bearerToken": "s3cr3t", "x": 1}', '{"bearerToken": "***", "x": 1}'),
        ("password=hunter2 user=bob", "password=*** user=bob"),
        ("secret: 'abc'", "secret: '***'"),
        ("PASSWORD=x", "PASSWORD=***"),
    ],
)
def test_credentials_are_masked(text: str, masked: str) -> None:
    assert redact(text) == masked


def test_ordinary_text_is_left_alone() -> None:
    text = "cluster prod-eu-1 is Unreachable after 3 probes (timeout)"
    assert redact(text) == text
