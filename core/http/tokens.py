"""Bearer tokens: the header's token, and the expected one (a file re-read on rotation, or a fixed value),
always compared in constant time."""

from __future__ import annotations

import hmac
import logging
import os
from pathlib import Path

from argocd_lifecycle.errors import ConfigError

log = logging.getLogger(__name__)


def presented_bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; None when absent or another scheme."""
    scheme, _, presented = (header or "").partition(" ")
    presented = presented.strip()
    if scheme.lower() != "bearer" or not presented:
        return None
    return presented


def same_token(presented: str, expected: bytes) -> bool:
    """Constant-time comparison (the time does not depend on where the two differ)."""
    return hmac.compare_digest(presented.encode("utf-8", "surrogateescape"), expected)


class TokenFile:
    """The expected bearer token, re-read whenever the file's identity, size or mtime changes.

    A file that vanishes or turns empty while the service runs (the instant of a Secret volume swap)
    keeps the last good token and logs a warning; at start-up either is an error.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int, int] | None = None
        self._token = b""
        if not self._reload():
            raise ConfigError(f"{path}: the token file is empty")

    def __repr__(self) -> str:  # never the token itself
        return f"TokenFile({str(self.path)!r})"

    def _reload(self) -> bool:
        """Re-read when changed; True when a usable token is loaded. Raises ConfigError before the first."""
        try:
            st = os.stat(self.path)
            stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
            if stamp == self._stamp:
                return True
            token = self.path.read_bytes().strip()
        except OSError as exc:
            if self._stamp is None:
                raise ConfigError(f"{self.path}: cannot read the token file: {exc.strerror}") from exc
            log.warning("token file %s unreadable (%s); keeping the previous token", self.path, exc.strerror)
            return True
        if not token:
            if self._stamp is not None:
                log.warning("token file %s is empty; keeping the previous token", self.path)
            return self._stamp is not None
        if self._stamp is not None and token != self._token:
            log.info("token file %s changed; using the new token", self.path)
        self._stamp, self._token = stamp, token
        return True

    def matches(self, presented: str) -> bool:
        """Constant-time comparison of a presented token with the current one."""
        self._reload()
        return same_token(presented, self._token)

    def same_as(self, other: TokenFile) -> bool:
        """Whether two files hold the same token now (two roles must never share one)."""
        self._reload()
        other._reload()
        return hmac.compare_digest(self._token, other._token)
