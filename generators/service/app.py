"""The plugin-generator HTTP service: a Starlette app serving a FleetView to Argo CD ApplicationSets.

Routes::

    POST /api/v1/getparams.execute   Argo CD's plugin generator protocol (bearer token)
    GET  /api/v1/clusters            the fleet as JSON (the fleet page's data)
    GET  /                           the fleet page
    GET  /healthz                    liveness
    GET  /metrics                    Prometheus exposition of the default registry
    GET  /openapi.json               OpenAPI document

Every refusal is JSON ``{"message": ...}``: Argo CD shows that message on the ApplicationSet and keeps
its Applications, where a 200 with fewer clusters would delete some.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from argocd_lifecycle.generators.fleet.view import FleetView
from argocd_lifecycle.generators.service.answers import Answer, ParamsService
from argocd_lifecycle.generators.service.errors import (
    Forbidden,
    PayloadTooLarge,
    ServiceError,
    Unauthorized,
)
from argocd_lifecycle.generators.service.fleet_page import FleetPage, fleet_document
from argocd_lifecycle.generators.service.guard import MassDropRefused
from argocd_lifecycle.generators.service.inputs import parse_request
from argocd_lifecycle.generators.service.openapi import openapi_document
from argocd_lifecycle.generators.service.settings import ServiceSettings
from argocd_lifecycle.http.body import BodyTooLarge, read_limited
from argocd_lifecycle.http.tokens import presented_bearer
from argocd_lifecycle.logs import redact

log = logging.getLogger(__name__)

REQUESTS = Counter("argocd_lifecycle_getparams_requests", "getparams.execute requests by HTTP status code", ["code"])
DURATION = Histogram(
    "argocd_lifecycle_getparams_duration_seconds",
    "Time to answer getparams.execute",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)
MASS_DROP_REFUSALS = Counter("argocd_lifecycle_getparams_mass_drop_refusals", "Answers refused by the mass-drop guard")


def _error(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"message": message}, status_code=status, headers=headers)


class _Auth:
    def __init__(self, settings: ServiceSettings) -> None:
        self._token = None if settings.insecure_no_auth else settings.token

    def check(self, header: str | None) -> None:
        if self._token is None:
            return
        presented = presented_bearer(header)
        if presented is None:
            raise Unauthorized("missing bearer token (send Authorization: Bearer <token>)")
        if not self._token.matches(presented):
            raise Forbidden("the bearer token does not match the configured token")


def _accepts_gzip(accept_encoding: str) -> bool:
    for item in accept_encoding.split(","):
        coding, _, params = item.partition(";")
        if coding.strip().lower() == "gzip":
            return params.replace(" ", "") not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


def _answer_response(answer: Answer, accept_encoding: str) -> Response:
    """Answers run to megabytes for large fleets and compress about 20:1, so gzip is served when asked."""
    if _accepts_gzip(accept_encoding):
        headers = {"Content-Encoding": "gzip", "Vary": "Accept-Encoding"}
        return Response(answer.gzipped, media_type="application/json", headers=headers)
    return Response(answer.body, media_type="application/json", headers={"Vary": "Accept-Encoding"})


async def _read_body(request: Request, limit: int) -> bytes:
    try:
        return await read_limited(request.headers, request.stream(), limit)
    except BodyTooLarge as exc:
        raise PayloadTooLarge(exc.message) from exc


def build_app(fleet: FleetView, settings: ServiceSettings) -> Starlette:
    """The ASGI app; run it with uvicorn (one worker is plenty: answers are cached per fleet change)."""
    service = ParamsService(
        fleet, settings.policy, max_staleness=settings.max_staleness, max_drop_percent=settings.max_drop_percent
    )
    auth = _Auth(settings)
    page = FleetPage(settings.page_refresh_seconds)
    openapi = openapi_document()

    async def execute(request: Request) -> Response:
        started = time.perf_counter()
        try:
            auth.check(request.headers.get("authorization"))
            body = await _read_body(request, settings.max_body_bytes)
            result = service.execute(parse_request(body))
            response: Response = _answer_response(result, request.headers.get("accept-encoding", ""))
        except ServiceError as exc:
            if isinstance(exc, MassDropRefused):
                MASS_DROP_REFUSALS.inc()
            level = logging.WARNING if exc.status >= 500 else logging.INFO
            log.log(level, "getparams.execute %d: %s", exc.status, redact(exc.message))
            headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, Unauthorized) else None
            response = _error(exc.status, exc.message, headers)
        REQUESTS.labels(str(response.status_code)).inc()
        DURATION.observe(time.perf_counter() - started)
        return response

    async def clusters(request: Request) -> Response:
        return JSONResponse(fleet_document(fleet))

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok", "synced": fleet.synced()})

    async def fleet_html(request: Request) -> Response:
        return HTMLResponse(page.render(fleet))

    async def metrics(request: Request) -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    async def openapi_json(request: Request) -> Response:
        return JSONResponse(openapi)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(exc.status_code, str(exc.detail), exc.headers)

    async def server_error(request: Request, exc: Exception) -> Response:
        log.error("%s %s failed: %s: %s", request.method, request.url.path, type(exc).__name__, redact(str(exc)))
        return _error(500, f"internal error: {type(exc).__name__}")

    routes = [
        Route("/api/v1/getparams.execute", execute, methods=["POST"]),
        Route("/api/v1/clusters", clusters, methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
        Route("/", fleet_html, methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error, Exception: server_error})
