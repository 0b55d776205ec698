"""The HMAC scheme shared by every signed hop: lifecycle notifier -> receiver -> generic webhooks.

``X-Argocd-Lifecycle-Timestamp: <unix seconds>`` and
``X-Argocd-Lifecycle-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + raw body)>``.
The timestamp is inside the MAC, so a captured request cannot be re-dated; a request older or newer
than ``tolerance`` seconds is stale. Replay inside the tolerance is stopped by the caller remembering
the signatures it has accepted (``verify`` returns the one it checked). Pure functions, no I/O, so
the lifecycle notifier imports this module without pulling in the receiver.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping

from argocd_lifecycle.errors import LifecycleError

TIMESTAMP_HEADER = "X-Argocd-Lifecycle-Timestamp"
SIGNATURE_HEADER = "X-Argocd-Lifecycle-Signature"
TOLERANCE_SECONDS = 300
_PREFIX = "sha256="


class SignatureError(LifecycleError):
    """A request failed verification. ``reason`` is a short metric label; the message never holds secrets."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def signature(secret: bytes, timestamp: str, body: bytes) -> str:
    """``sha256=<hex>`` over ``timestamp + "." + body``."""
    mac = hmac.new(secret, timestamp.encode("ascii") + b"." + body, hashlib.sha256)
    return _PREFIX + mac.hexdigest()


def sign(secret: bytes, body: bytes, now: float) -> dict[str, str]:
    """The two headers to send with ``body`` at time ``now`` (unix seconds)."""
    timestamp = str(int(now))
    return {TIMESTAMP_HEADER: timestamp, SIGNATURE_HEADER: signature(secret, timestamp, body)}


def _header(headers: Mapping[str, str], name: str) -> str | None:
    # Starlette/httpx headers are case-insensitive already; a plain dict may use any case.
    value = headers.get(name)
    if value is None:
        value = headers.get(name.lower())
    return value


def verify(
    secret: bytes,
    body: bytes,
    headers: Mapping[str, str],
    now: float,
    tolerance: int = TOLERANCE_SECONDS,
) -> str:
    """Check the headers against ``body``; return the verified signature (the replay key).

    Raises SignatureError with reason ``missing``, ``malformed``, ``stale`` or ``mismatch``.
    """
    timestamp = _header(headers, TIMESTAMP_HEADER)
    sent = _header(headers, SIGNATURE_HEADER)
    if not timestamp or not sent:
        raise SignatureError("missing", f"missing {TIMESTAMP_HEADER} or {SIGNATURE_HEADER} header")
    timestamp = timestamp.strip()
    if not timestamp.isascii() or not timestamp.isdigit() or len(timestamp) > 12:
        raise SignatureError("malformed", f"{TIMESTAMP_HEADER} must be unix seconds")
    if abs(now - int(timestamp)) > tolerance:
        raise SignatureError("stale", f"{TIMESTAMP_HEADER} is more than {tolerance}s away from now")
    sent = sent.strip()
    if not sent.startswith(_PREFIX):
        raise SignatureError("malformed", f"{SIGNATURE_HEADER} must be sha256=<hex>")
    expected = signature(secret, timestamp, body)
    if not hmac.compare_digest(expected.encode("ascii"), sent.lower().encode("ascii", "replace")):
        raise SignatureError("mismatch", "signature does not match the body")
    return expected
