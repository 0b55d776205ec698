"""Base64 of hostile text: every malformed input is binascii.Error, never a bare ValueError."""

from __future__ import annotations

import binascii

import pytest

from argocd_lifecycle import base64_text


@pytest.mark.parametrize("text", ["é", "YWJj\u00e9", "YWJj\x00", "***", "YWJ", "\u0661\u0662\u0663\u0664", " YWJj"])
def test_anything_but_base64_is_binascii_error(text: str) -> None:
    with pytest.raises(binascii.Error):
        base64_text.decode(text)


def test_base64_decodes() -> None:
    assert base64_text.decode("YWJj") == b"abc" and base64_text.decode("") == b""
