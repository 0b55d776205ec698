from __future__ import annotations

import hashlib
import hmac

import pytest

from argocd_lifecycle.signing import (
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    SignatureError,
    sign,
    verify,
)

SECRET, BODY, NOW = b"s3cret", b'{"reason":"ClusterReady"}', 1_760_000_000.0


def test_sign_matches_the_documented_scheme() -> None:
    headers = sign(SECRET, BODY, NOW)
    expected = hmac.new(SECRET, b"1760000000." + BODY, hashlib.sha256).hexdigest()
    assert headers == {TIMESTAMP_HEADER: "1760000000", SIGNATURE_HEADER: f"sha256={expected}"}


def test_verify_accepts_and_returns_the_replay_key() -> None:
    headers = sign(SECRET, BODY, NOW)
    assert verify(SECRET, BODY, headers, NOW + 299) == headers[SIGNATURE_HEADER]
    lower = {k.lower(): v for k, v in headers.items()}
    assert verify(SECRET, BODY, lower, NOW - 299) == headers[SIGNATURE_HEADER]


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (lambda h, b: ({}, b), "missing"),
        (lambda h, b: ({**h, TIMESTAMP_HEADER: "yesterday"}, b), "malformed"),
        (lambda h, b: ({**h, SIGNATURE_HEADER: h[SIGNATURE_HEADER].removeprefix("sha256=")}, b), "malformed"),
        (lambda h, b: (h, b + b" "), "mismatch"),
        (lambda h, b: ({**h, TIMESTAMP_HEADER: str(int(NOW) + 1)}, b), "mismatch"),  # re-dated
    ],
)
def test_verify_rejects(mutate, reason: str) -> None:
    headers, body = mutate(sign(SECRET, BODY, NOW), BODY)
    with pytest.raises(SignatureError) as err:
        verify(SECRET, body, headers, NOW)
    assert err.value.reason == reason
    assert "s3cret" not in str(err.value)


def test_verify_rejects_stale_and_future_timestamps() -> None:
    headers = sign(SECRET, BODY, NOW)
    for now in (NOW + 301, NOW - 301):
        with pytest.raises(SignatureError) as err:
            verify(SECRET, BODY, headers, now)
        assert err.value.reason == "stale"


def test_wrong_secret_is_a_mismatch() -> None:
    with pytest.raises(SignatureError, match="does not match"):
        verify(b"other", BODY, sign(SECRET, BODY, NOW), NOW)
