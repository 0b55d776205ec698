"""Certificate expiry of a cluster's CA and client certificate (PEM, possibly several per bundle)."""

from __future__ import annotations

from datetime import datetime

from cryptography import x509

from argocd_lifecycle.errors import LifecycleError


class CertificateError(LifecycleError):
    """A PEM bundle that does not hold a certificate."""


def not_after(pem: bytes, *, what: str) -> datetime:
    """The earliest expiry (UTC, aware) among the certificates of a PEM bundle."""
    try:
        certs = x509.load_pem_x509_certificates(pem)
    except ValueError as exc:
        raise CertificateError(f"{what}: not a PEM certificate ({exc})") from exc
    return min(cert.not_valid_after_utc for cert in certs)


def earliest_expiry(*bundles: tuple[str, bytes]) -> datetime | None:
    """The earliest expiry over the non-empty ``(what, pem)`` bundles, or None when there are none."""
    dates = [not_after(pem, what=what) for what, pem in bundles if pem]
    return min(dates) if dates else None
