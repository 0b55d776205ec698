"""Certificate expiry of PEM bundles: the earliest certificate counts, and a bad bundle is named."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from argocd_lifecycle.certs import CertificateError, earliest_expiry, not_after

START = datetime(2026, 1, 1, tzinfo=UTC)


def _pem(days: int) -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"valid-{days}d")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(START)
        .not_valid_after(START + timedelta(days=days))
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


def test_the_earliest_certificate_of_a_bundle_counts() -> None:
    bundle = _pem(90) + _pem(10) + _pem(365)
    assert not_after(bundle, what="caData") == START + timedelta(days=10)


def test_earliest_over_several_bundles_skips_empty_ones() -> None:
    expires = earliest_expiry(("caData", _pem(30)), ("certData", b""), ("other", _pem(20)))
    assert expires == START + timedelta(days=20)
    assert expires.tzinfo is not None


def test_no_bundles_means_no_expiry() -> None:
    assert earliest_expiry(("caData", b""), ("certData", b"")) is None


def test_a_bundle_without_a_certificate_is_named() -> None:
    with pytest.raises(CertificateError, match=r"^config\.tlsClientConfig\.caData: not a PEM certificate"):
        not_after(b"-----BEGIN NOTHING-----\n", what="config.tlsClientConfig.caData")
