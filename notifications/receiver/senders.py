"""The signed senders: each signs with its own HMAC secret, accepted on its own route only.

The generator signs lifecycle events (``/v1/events/lifecycle``) with the lifecycle secret; every other
system signs external events (``/v1/events/external``) with the external secret. Only lifecycle events
set a cluster's phase and open or end a storm, so a secret handed to external senders must never be
able to sign one: a request signed with the other sender's secret is 403 ``wrong_secret`` (the
bearer roles' ``wrong_role``), a route whose secret is not configured is 403 ``disabled`` before its
body is read, and anything else is the signature's 401.
"""

from __future__ import annotations

from collections.abc import Mapping

from argocd_lifecycle.http.errors import HttpError
from argocd_lifecycle.signing import SignatureError, verify

LIFECYCLE, EXTERNAL = "lifecycle", "external"
#: sender -> the key of its secret file in the config's ``inbound`` section
SECRET_KEYS = {LIFECYCLE: "lifecycleSecretFile", EXTERNAL: "externalSecretFile"}


class Senders:
    def __init__(self, secrets: Mapping[str, bytes | None]) -> None:
        self._secrets = dict(secrets)

    def __repr__(self) -> str:
        return f"Senders({sorted(k for k, v in self._secrets.items() if v is not None)!r})"

    def require(self, sender: str) -> None:
        """Refuse a route whose sender has no secret, before anything of the body is read."""
        if self._secrets.get(sender) is None:
            raise HttpError(
                403, "disabled", f"/v1/events/{sender} is off: no inbound.{SECRET_KEYS[sender]} is configured"
            )

    def verify(self, sender: str, body: bytes, headers: Mapping[str, str], now: float, tolerance: int) -> str:
        """The verified signature (the replay key) of ``sender``'s request; HttpError or SignatureError."""
        self.require(sender)
        secret = self._secrets[sender]
        assert secret is not None  # require() returned
        try:
            return verify(secret, body, headers, now, tolerance)
        except SignatureError as exc:
            if exc.reason == "mismatch":
                self._other_sender(sender, body, headers, now, tolerance)
            raise

    def _other_sender(self, sender: str, body: bytes, headers: Mapping[str, str], now: float, tolerance: int) -> None:
        for other, secret in self._secrets.items():
            if other == sender or secret is None:
                continue
            try:
                verify(secret, body, headers, now, tolerance)
            except SignatureError:
                continue
            raise HttpError(
                403,
                "wrong_secret",
                f"signed with the {other} secret; /v1/events/{sender} takes only the {sender} secret",
            )
