"""One JSON error shape for both services: ``{"message": "<what was wrong>", "reason": "<word>"}``.

Argo CD's plugin-generator client shows a refusal's ``message`` on the ApplicationSet (it also reads
``error``, which we do not send); ``reason`` is one stable word for programs and metric labels. The
connection-level refusals written by ``core/http/protocol.py`` use the same body.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from starlette.responses import Response

from argocd_lifecycle.errors import LifecycleError

#: the OpenAPI schema of every error body
ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["message", "reason"],
    "properties": {"message": {"type": "string"}, "reason": {"type": "string"}},
}


class HttpError(LifecycleError):
    """A request refused with ``status``; ``message`` names what was wrong (never a secret)."""

    def __init__(self, status: int, reason: str, message: str, *, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.reason = status, reason
        self.headers: dict[str, str] = dict(headers or {})


def error_body(reason: str, message: str) -> bytes:
    return json.dumps({"message": message, "reason": reason}, separators=(",", ":")).encode()


def error_response(error: HttpError) -> Response:
    return Response(
        error_body(error.reason, error.message),
        status_code=error.status,
        media_type="application/json",
        headers=error.headers or None,
    )
