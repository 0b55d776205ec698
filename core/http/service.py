"""How a service is built: a class holding its state and its own metrics registry, whose ``endpoints()``
lists every route as an ``Endpoint`` (method, path, handler, the bearer role it needs, whether it takes
a body, its OpenAPI operation); ``build_app`` turns that table into the Starlette app.

From the one table come the routes, the credential check of every route (applied here, before the
handler runs and before any body is read, so a route cannot forget it), and ``/openapi.json``
(``core/http/openapi.py``), so the document cannot drift from the routes. Every refusal, from the
handler, from routing (404/405) or from an unexpected exception (500, logged without secrets), is the
one JSON error shape of ``core/http/errors.py``.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from argocd_lifecycle.http.auth import BearerAuth
from argocd_lifecycle.http.body import read_request_body
from argocd_lifecycle.http.endpoints import Endpoint, Handler, OnError, ServiceInfo, Translations
from argocd_lifecycle.http.errors import HttpError, error_response
from argocd_lifecycle.http.openapi import openapi_document
from argocd_lifecycle.redaction import redact

log = logging.getLogger(__name__)

_REASONS = {404: "not_found", 405: "method_not_allowed"}


def _guarded(
    endpoint: Endpoint, auth: BearerAuth | None, translations: Translations, on_error: OnError | None
) -> Handler:
    handler, role, observe, translated = endpoint.handler, endpoint.role, endpoint.observe, tuple(translations)
    admit, body, limit = endpoint.admit, endpoint.body, endpoint.max_body
    if role is not None and auth is None:
        raise ValueError(f"{endpoint.method} {endpoint.path} needs the {role} role but the service has no BearerAuth")

    async def call(request: Request) -> Response:
        started = time.perf_counter()
        try:
            if role is not None:
                assert auth is not None
                auth.check(request.headers.get("authorization"), role)
            if admit is not None:
                admit()
            if body:
                await read_request_body(request, limit)
            response = await handler(request)
        except Exception as exc:
            if isinstance(exc, HttpError):
                error = exc
            elif isinstance(exc, translated):
                error = next(make(exc) for kind, make in translations.items() if isinstance(exc, kind))
            else:
                log.error(
                    "%s %s failed: %s: %s", request.method, request.url.path, type(exc).__name__, redact(str(exc))
                )
                error = HttpError(500, "internal", f"internal error: {type(exc).__name__}")
            if on_error is not None:
                on_error(request, error)
            response = error_response(error)
        if observe is not None:
            observe(response.status_code, time.perf_counter() - started)
        return response

    return call


def build_app(
    info: ServiceInfo,
    endpoints: Sequence[Endpoint],
    *,
    auth: BearerAuth | None = None,
    translations: Translations | None = None,
    on_error: OnError | None = None,
    lifespan: Any = None,
) -> Starlette:
    """The ASGI app of ``endpoints`` plus ``GET /openapi.json``; serve it with ``core/http/server.py``."""
    translations = translations or {}
    document = json.dumps(openapi_document(info, endpoints), separators=(",", ":")).encode()

    async def openapi(request: Request) -> Response:
        return Response(document, media_type="application/json")

    async def routing_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        error = HttpError(exc.status_code, _REASONS.get(exc.status_code, "bad_request"), str(exc.detail))
        error.headers.update(exc.headers or {})
        if on_error is not None:
            on_error(request, error)
        return error_response(error)

    async def unexpected(request: Request, exc: Exception) -> Response:
        log.error("%s %s failed: %s: %s", request.method, request.url.path, type(exc).__name__, redact(str(exc)))
        return error_response(HttpError(500, "internal", f"internal error: {type(exc).__name__}"))

    routes = [Route(e.path, _guarded(e, auth, translations, on_error), methods=[e.method]) for e in endpoints]
    routes.append(Route("/openapi.json", openapi, methods=["GET"]))
    return Starlette(
        routes=routes, exception_handlers={HTTPException: routing_error, Exception: unexpected}, lifespan=lifespan
    )
