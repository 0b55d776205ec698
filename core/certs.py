"""Certificates of a cluster's CA and client certificate (PEM, possibly several per bundle): expiry,
and the bundle as the certificates it holds."""

from __future__ import annotations

from datetime import datetime

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from argocd_lifecycle.errors import LifecycleError


class CertificateError(LifecycleError):
    """A PEM bundle that does not hold a certificate."""


def certificates(pem: bytes, *, what: str) -> list[x509.Certificate]:
    """The certificates of a PEM bundle; ``CertificateError`` naming ``what`` (never its bytes) otherwise."""
    try:
        return x509.load_pem_x509_certificates(pem)
    except (ValueError, TypeError) as exc:  # the parser's own wording names no byte of the input
        raise CertificateError(f"{what}: not a PEM certificate ({exc})") from exc


def not_after(pem: bytes, *, what: str) -> datetime:
    """The earliest expiry (UTC, aware) among the certificates of a PEM bundle."""
    return min(cert.not_valid_after_utc for cert in certificates(pem, what=what))


def canonical_bundle(pem: bytes, *, what: str) -> bytes:
    """The bundle as only the certificates in it, PEM-encoded again: text around and between them (which
    Go's and OpenSSL's readers skip, but which made Python's ``ssl`` refuse a non-ASCII bundle with a
    TypeError) is dropped, so every reader sees the same certificates."""
    return b"".join(cert.public_bytes(Encoding.PEM) for cert in certificates(pem, what=what))


def earliest_expiry(*bundles: tuple[str, bytes]) -> datetime | None:
    """The earliest expiry over the non-empty ``(what, pem)`` bundles, or None when there are none."""
    dates = [not_after(pem, what=what) for what, pem in bundles if pem]
    return min(dates) if dates else None
