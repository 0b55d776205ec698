"""The HTTP API (Starlette): authenticate, parse, hand to the pipeline; silences, outbox, health, metrics."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from argocd_lifecycle.http.body import BodyTooLarge, read_limited
from argocd_lifecycle.http.tokens import presented_bearer, same_token
from argocd_lifecycle.notifications.receiver import events, silences, wire
from argocd_lifecycle.notifications.receiver.config import ReceiverConfig
from argocd_lifecycle.notifications.receiver.metrics import Metrics
from argocd_lifecycle.notifications.receiver.openapi import schemas
from argocd_lifecycle.notifications.receiver.outbox import Deliverer
from argocd_lifecycle.notifications.receiver.pipeline import Pipeline
from argocd_lifecycle.notifications.receiver.sinks import build
from argocd_lifecycle.notifications.receiver.state import DEAD, PENDING, StateError, StateStore
from argocd_lifecycle.signing import SignatureError, verify

log = logging.getLogger(__name__)
MAX_BODY = 1024 * 1024
HOUSEKEEPING_SECONDS = 60.0


class ApiError(Exception):
    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason, self.message = status, reason, message


class Receiver:
    """Everything one running receiver holds; the routes are its methods."""

    def __init__(self, config: ReceiverConfig, store: StateStore, clock: Callable[[], float] = time.time) -> None:
        self.config, self.store, self.clock = config, store, clock
        self.metrics = Metrics()
        self.client = httpx.AsyncClient(timeout=config.delivery.timeout, follow_redirects=False)
        sinks = {spec.name: build(spec, self.client, clock) for spec in config.sinks}
        rates = {spec.name: spec.rate for spec in config.sinks}
        self.deliverer = Deliverer(config.delivery, store, sinks, rates, self.metrics, clock=clock)
        self.pipeline = Pipeline(config, store, self.metrics, wake=self.deliverer.wake)

    # --- helpers -------------------------------------------------------------------------------
    def _bearer(self, request: Request) -> None:
        presented = presented_bearer(request.headers.get("authorization"))
        if presented is None or not same_token(presented, self.config.token.encode("utf-8", "surrogateescape")):
            raise ApiError(401, "token", "missing or wrong bearer token")

    async def _body(self, request: Request) -> bytes:
        try:
            return await read_limited(request.headers, request.stream(), MAX_BODY)
        except BodyTooLarge as exc:
            raise ApiError(413, "too_large", f"body is larger than {MAX_BODY} bytes") from exc

    async def _signed_body(self, request: Request) -> bytes:
        body, now = await self._body(request), self.clock()
        signature = verify(self.config.hmac_secret, body, request.headers, now, self.config.tolerance)
        if await self.store.replayed(signature, now, 2 * self.config.tolerance):
            raise ApiError(401, "replay", "this signature was already used")
        return body

    async def _accept(self, event: events.Event) -> Response:
        result = await self.pipeline.ingest(event)
        return JSONResponse(result.to_json(), status_code=202)

    # --- events --------------------------------------------------------------------------------
    async def argocd_event(self, request: Request) -> Response:
        """Notification from the Argo CD notifications controller (catalog webhook body).
        ---
        summary: Accept an Argo CD notification
        security: [{bearer: []}]
        requestBody:
          required: true
          content: {application/json: {schema: {$ref: '#/components/schemas/ArgocdEvent'}}}
        responses:
          '202': {description: Accepted, content: {application/json: {schema: {$ref: '#/components/schemas/Accepted'}}}}
          '400': {$ref: '#/components/responses/Error'}
          '401': {$ref: '#/components/responses/Error'}
          '413': {$ref: '#/components/responses/Error'}
        """
        self._bearer(request)
        data = wire.check_argocd(wire.parse_object(await self._body(request)))
        return await self._accept(events.from_argocd(data, self.clock()))

    async def lifecycle_event(self, request: Request) -> Response:
        """Cluster lifecycle transition from the inventory, HMAC-signed.
        ---
        summary: Accept a signed lifecycle event
        parameters: [{$ref: '#/components/parameters/timestamp'}, {$ref: '#/components/parameters/signature'}]
        requestBody:
          required: true
          content: {application/json: {schema: {$ref: '#/components/schemas/LifecycleEvent'}}}
        responses:
          '202': {description: Accepted, content: {application/json: {schema: {$ref: '#/components/schemas/Accepted'}}}}
          '400': {$ref: '#/components/responses/Error'}
          '401': {$ref: '#/components/responses/Error'}
          '413': {$ref: '#/components/responses/Error'}
        """
        data = wire.check_lifecycle(wire.parse_object(await self._signed_body(request)))
        return await self._accept(events.from_lifecycle(data, self.clock()))

    async def external_event(self, request: Request) -> Response:
        """Event from any other system that signs its requests.
        ---
        summary: Accept a signed external event
        parameters: [{$ref: '#/components/parameters/timestamp'}, {$ref: '#/components/parameters/signature'}]
        requestBody:
          required: true
          content: {application/json: {schema: {$ref: '#/components/schemas/ExternalEvent'}}}
        responses:
          '202': {description: Accepted, content: {application/json: {schema: {$ref: '#/components/schemas/Accepted'}}}}
          '400': {$ref: '#/components/responses/Error'}
          '401': {$ref: '#/components/responses/Error'}
          '413': {$ref: '#/components/responses/Error'}
        """
        data = wire.check_external(wire.parse_object(await self._signed_body(request)))
        return await self._accept(events.from_external(data, self.clock()))

    # --- silences ------------------------------------------------------------------------------
    async def list_silences(self, request: Request) -> Response:
        """Silences that have not expired.
        ---
        summary: List silences
        security: [{bearer: []}]
        responses:
          '200':
            description: The silences
            content: {application/json: {schema: {$ref: '#/components/schemas/SilenceList'}}}
          '401': {$ref: '#/components/responses/Error'}
        """
        self._bearer(request)
        found = await self.store.silences(self.clock())
        return JSONResponse({"silences": [s.to_json() for s in found]})

    async def create_silence(self, request: Request) -> Response:
        """Create a silence from matchers and a duration or an expiry time.
        ---
        summary: Create a silence
        security: [{bearer: []}]
        requestBody:
          required: true
          content: {application/json: {schema: {$ref: '#/components/schemas/SilenceRequest'}}}
        responses:
          '201': {description: Created, content: {application/json: {schema: {$ref: '#/components/schemas/Silence'}}}}
          '400': {$ref: '#/components/responses/Error'}
          '401': {$ref: '#/components/responses/Error'}
          '413': {$ref: '#/components/responses/Error'}
        """
        self._bearer(request)
        silence = silences.from_request(wire.parse_object(await self._body(request)), self.clock())
        await self.store.add_silence(silence)
        log.info("silence %s created until %s", silence.id, silence.to_json()["expiresAt"])
        return JSONResponse(silence.to_json(), status_code=201)

    async def delete_silence(self, request: Request) -> Response:
        """Expire a silence now.
        ---
        summary: Delete a silence
        security: [{bearer: []}]
        parameters: [{name: silence_id, in: path, required: true, schema: {type: string}}]
        responses:
          '204': {description: Deleted}
          '401': {$ref: '#/components/responses/Error'}
          '404': {$ref: '#/components/responses/Error'}
        """
        self._bearer(request)
        if not await self.store.delete_silence(request.path_params["silence_id"]):
            raise ApiError(404, "not_found", "no such silence")
        return Response(status_code=204)

    # --- operations ----------------------------------------------------------------------------
    async def _depth(self) -> dict[str, int]:
        counts = await self.store.outbox_counts()
        for state, n in counts.items():
            self.metrics.outbox_depth.labels(state).set(n)
        return counts

    async def outbox(self, request: Request) -> Response:
        """Outbox counts, the pending items and the dead-letter list.
        ---
        summary: Show the outbox
        security: [{bearer: []}]
        parameters: [{name: limit, in: query, required: false, schema: {type: integer, minimum: 1, maximum: 1000}}]
        responses:
          '200': {description: The outbox, content: {application/json: {schema: {type: object}}}}
          '400': {$ref: '#/components/responses/Error'}
          '401': {$ref: '#/components/responses/Error'}
        """
        self._bearer(request)
        raw = request.query_params.get("limit", "100")
        if not raw.isdigit() or not 1 <= int(raw) <= 1000:
            raise ApiError(400, "bad_request", "limit must be a whole number from 1 to 1000")
        limit = int(raw)
        pending, dead = await self.store.outbox(PENDING, limit), await self.store.outbox(DEAD, limit)
        return JSONResponse(
            {
                "counts": await self._depth(),
                "pending": [i.to_json() for i in pending],
                "deadLetter": [i.to_json() for i in dead],
            }
        )

    async def healthz(self, request: Request) -> Response:
        """Liveness and state-store reachability.
        ---
        summary: Health
        responses:
          '200': {description: OK, content: {application/json: {schema: {type: object}}}}
          '503': {$ref: '#/components/responses/Error'}
        """
        try:
            await self.store.ping()
        except Exception as exc:
            raise ApiError(503, "state", f"state store unavailable: {type(exc).__name__}") from exc
        return JSONResponse({"status": "ok"})

    async def metrics_endpoint(self, request: Request) -> Response:
        """Prometheus metrics.
        ---
        summary: Metrics
        responses:
          '200': {description: Prometheus text format, content: {text/plain: {schema: {type: string}}}}
        """
        await self._depth()
        return Response(generate_latest(self.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    async def openapi(self, request: Request) -> Response:
        """This document.
        ---
        summary: OpenAPI document
        responses:
          '200': {description: OpenAPI 3, content: {application/json: {schema: {type: object}}}}
        """
        return JSONResponse(schemas.get_schema(routes=request.app.routes))

    # --- errors --------------------------------------------------------------------------------
    def _error(self, status: int, reason: str, message: str) -> Response:
        self.metrics.rejected.labels(reason).inc()
        return JSONResponse({"error": message}, status_code=status)

    async def on_api_error(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return self._error(exc.status, exc.reason, exc.message)

    async def on_bad_payload(self, request: Request, exc: Exception) -> Response:
        return self._error(400, "bad_request", str(exc))

    async def on_signature(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, SignatureError)
        return self._error(401, f"signature_{exc.reason}", exc.message)

    async def on_state(self, request: Request, exc: Exception) -> Response:
        log.error("%s", exc)
        return self._error(503, "state", "state store unavailable; retry later")

    def routes(self) -> list[Route]:
        return [
            Route("/v1/events/argocd", self.argocd_event, methods=["POST"]),
            Route("/v1/events/lifecycle", self.lifecycle_event, methods=["POST"]),
            Route("/v1/events/external", self.external_event, methods=["POST"]),
            Route("/v1/silences", self.list_silences, methods=["GET"]),
            Route("/v1/silences", self.create_silence, methods=["POST"]),
            Route("/v1/silences/{silence_id}", self.delete_silence, methods=["DELETE"]),
            Route("/v1/outbox", self.outbox, methods=["GET"]),
            Route("/healthz", self.healthz, methods=["GET"]),
            Route("/metrics", self.metrics_endpoint, methods=["GET"]),
            Route("/openapi.json", self.openapi, methods=["GET"], include_in_schema=False),
        ]

    async def housekeeping(self) -> None:
        """Prune expired state every minute until cancelled."""
        while True:
            try:
                await self.store.housekeeping(
                    self.clock(), retention=self.config.delivery.retention, flap_window=self.config.flap_window
                )
            except Exception as exc:  # keep serving and delivering even if pruning fails
                log.warning("state housekeeping failed: %s", exc)
            await asyncio.sleep(HOUSEKEEPING_SECONDS)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        tasks = [
            asyncio.create_task(self.deliverer.run(), name="outbox"),
            asyncio.create_task(self.housekeeping(), name="housekeeping"),
        ]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await self.client.aclose()
            await self.store.close()


def build_app(receiver: Receiver) -> Starlette:
    handlers: dict[Any, Any] = {
        ApiError: receiver.on_api_error,
        wire.BadPayload: receiver.on_bad_payload,
        SignatureError: receiver.on_signature,
        StateError: receiver.on_state,
    }
    return Starlette(routes=receiver.routes(), exception_handlers=handlers, lifespan=receiver.lifespan)
