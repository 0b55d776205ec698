"""The HTTP API: authenticate, parse, hand to the pipeline; silences, outbox, replays, health, metrics.

Built the way every service here is (``core/http/service.py``): ``Receiver`` holds the state and its
own metrics registry, ``Receiver.endpoints`` is the route table with the credential each route needs.
Two bearer roles (``core/http/auth.py``): ``ingest`` for Argo CD's notifications controller, ``admin``
for silences, the outbox and replays, so the ingest token, which has to sit in
argocd-notifications-secret, can never silence or replay anything. The signed routes (the generator's
lifecycle events, external senders) take no bearer token: their HMAC signature is their credential,
each sender's made with its own secret and accepted on its own route only (``senders.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import httpx
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from argocd_lifecycle.http.auth import BearerAuth
from argocd_lifecycle.http.body import request_body
from argocd_lifecycle.http.endpoints import Endpoint, Handler
from argocd_lifecycle.http.errors import HttpError
from argocd_lifecycle.http.service import build_app as build_service_app
from argocd_lifecycle.notifications.receiver import events, silences, wire
from argocd_lifecycle.notifications.receiver.config import ReceiverConfig
from argocd_lifecycle.notifications.receiver.links import Links
from argocd_lifecycle.notifications.receiver.metrics import Metrics
from argocd_lifecycle.notifications.receiver.openapi import INFO, OPERATIONS
from argocd_lifecycle.notifications.receiver.outbox import Deliverer
from argocd_lifecycle.notifications.receiver.pipeline import Pipeline
from argocd_lifecycle.notifications.receiver.senders import EXTERNAL, LIFECYCLE, Senders
from argocd_lifecycle.notifications.receiver.sinks import build
from argocd_lifecycle.notifications.receiver.state import DEAD, PENDING, StateError, StateStore
from argocd_lifecycle.signing import SignatureError

log = logging.getLogger(__name__)
HOUSEKEEPING_SECONDS = 60.0
INGEST, ADMIN = "ingest", "admin"


class Receiver:
    """Everything one running receiver holds; the routes are its methods."""

    def __init__(self, config: ReceiverConfig, store: StateStore, clock: Callable[[], float] = time.time) -> None:
        self.config, self.store, self.clock = config, store, clock
        self.metrics = Metrics()
        self.auth = BearerAuth({INGEST: config.ingest_token, ADMIN: config.admin_token})
        self.senders = Senders({LIFECYCLE: config.lifecycle_secret, EXTERNAL: config.external_secret})
        self.links = Links(config.argocd_url)
        self.client = httpx.AsyncClient(timeout=config.delivery.timeout, follow_redirects=False)
        sinks = {spec.name: build(spec, self.client, clock) for spec in config.sinks}
        rates = {spec.name: spec.rate for spec in config.sinks}
        self.deliverer = Deliverer(config.delivery, store, sinks, rates, self.metrics, clock=clock)
        self.pipeline = Pipeline(config, store, self.metrics, wake=self.deliverer.wake)

    # --- helpers -------------------------------------------------------------------------------
    async def _signed_body(self, request: Request, sender: str) -> bytes:
        # the layer read it (the route's admit refused a sender without a secret first) and checked its
        # depth: a body is read before its signature can be checked, so a deep one is refused first
        body, now = request_body(request), self.clock()
        signature = self.senders.verify(sender, body, request.headers, now, self.config.tolerance)
        if await self.store.replayed(signature, now, 2 * self.config.tolerance):
            raise HttpError(401, "replay", "this signature was already used")
        return body

    async def _accept(self, event: events.Event) -> Response:
        result = await self.pipeline.ingest(event)
        return JSONResponse(result.to_json(), status_code=202)

    # --- events (ingest) ------------------------------------------------------------------------
    async def argocd_event(self, request: Request) -> Response:
        """Notification from the Argo CD notifications controller (the catalog's webhook body)."""
        data = wire.check_argocd(wire.parse_object(request_body(request)))
        return await self._accept(events.from_argocd(data, self.clock(), self.links))

    async def lifecycle_event(self, request: Request) -> Response:
        """Cluster lifecycle transition from the generator, signed with the lifecycle secret."""
        data = wire.check_lifecycle(wire.parse_object(await self._signed_body(request, LIFECYCLE)))
        return await self._accept(events.from_lifecycle(data, self.clock(), self.links))

    async def external_event(self, request: Request) -> Response:
        """Event from any other system, signed with the external secret."""
        data = wire.check_external(wire.parse_object(await self._signed_body(request, EXTERNAL)))
        return await self._accept(events.from_external(data, self.clock(), self.links))

    # --- administration ------------------------------------------------------------------------
    async def list_silences(self, request: Request) -> Response:
        found = await self.store.silences(self.clock())
        return JSONResponse({"silences": [s.to_json() for s in found]})

    async def create_silence(self, request: Request) -> Response:
        silence = silences.from_request(wire.parse_object(request_body(request)), self.clock())
        await self.store.add_silence(silence)
        log.info("silence %s created until %s", silence.id, silence.to_json()["expiresAt"])
        return JSONResponse(silence.to_json(), status_code=201)

    async def delete_silence(self, request: Request) -> Response:
        if not await self.store.delete_silence(request.path_params["silence_id"]):
            raise HttpError(404, "not_found", "no such silence")
        return Response(status_code=204)

    async def _depth(self) -> dict[str, int]:
        counts = await self.store.outbox_counts()
        for state, n in counts.items():
            self.metrics.outbox_depth.labels(state).set(n)
        return counts

    async def outbox(self, request: Request) -> Response:
        raw = request.query_params.get("limit", "100")
        if not raw.isdigit() or not 1 <= int(raw) <= 1000:
            raise HttpError(400, "bad_request", "limit must be a whole number from 1 to 1000")
        limit = int(raw)
        pending, dead = await self.store.outbox(PENDING, limit), await self.store.outbox(DEAD, limit)
        return JSONResponse(
            {
                "counts": await self._depth(),
                "pending": [i.to_json() for i in pending],
                "deadLetter": [i.to_json() for i in dead],
            }
        )

    async def replay(self, request: Request) -> Response:
        item_id = request.path_params["item_id"]
        if not await self.store.replay(item_id, self.clock()):
            raise HttpError(404, "not_found", "no dead letter with this id")
        log.info("dead letter %s replayed", item_id)
        self.deliverer.wake()
        return JSONResponse({"id": item_id, "state": PENDING}, status_code=202)

    # --- operations ----------------------------------------------------------------------------
    async def healthz(self, request: Request) -> Response:
        try:
            await self.store.ping()
        except Exception as exc:
            raise HttpError(503, "state", f"state store unavailable: {type(exc).__name__}") from exc
        return JSONResponse({"status": "ok"})

    async def metrics_endpoint(self, request: Request) -> Response:
        await self._depth()
        return Response(generate_latest(self.metrics.registry), media_type=CONTENT_TYPE_LATEST)

    # --- the route table and its errors --------------------------------------------------------
    def endpoints(self) -> list[Endpoint]:
        ops = OPERATIONS

        def signed(path: str, handler: Handler, operation: Mapping[str, Any], sender: str) -> Endpoint:
            """A route signed with ``sender``'s secret: off (403, nothing read) while that secret is absent."""
            return Endpoint("POST", path, handler, operation, body=True, admit=lambda: self.senders.require(sender))

        return [
            Endpoint("POST", "/v1/events/argocd", self.argocd_event, ops["argocd_event"], role=INGEST, body=True),
            signed("/v1/events/lifecycle", self.lifecycle_event, ops["lifecycle_event"], LIFECYCLE),
            signed("/v1/events/external", self.external_event, ops["external_event"], EXTERNAL),
            Endpoint("GET", "/v1/silences", self.list_silences, ops["list_silences"], role=ADMIN),
            Endpoint("POST", "/v1/silences", self.create_silence, ops["create_silence"], role=ADMIN, body=True),
            Endpoint("DELETE", "/v1/silences/{silence_id}", self.delete_silence, ops["delete_silence"], role=ADMIN),
            Endpoint("GET", "/v1/outbox", self.outbox, ops["outbox"], role=ADMIN),
            Endpoint("POST", "/v1/outbox/{item_id}/replay", self.replay, ops["replay"], role=ADMIN),
            Endpoint("GET", "/healthz", self.healthz, ops["healthz"]),
            Endpoint("GET", "/metrics", self.metrics_endpoint, ops["metrics"]),
        ]

    def on_error(self, request: Request, error: HttpError) -> None:
        self.metrics.rejected.labels(error.reason).inc()

    @staticmethod
    def _state_error(exc: StateError) -> HttpError:
        log.error("%s", exc)
        return HttpError(503, "state", "state store unavailable; retry later")

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
    translations: dict[type[Exception], Callable[[Any], HttpError]] = {
        wire.BadPayload: lambda exc: HttpError(400, "bad_request", exc.message),
        SignatureError: lambda exc: HttpError(401, f"signature_{exc.reason}", exc.message),
        StateError: receiver._state_error,
    }
    return build_service_app(
        INFO,
        receiver.endpoints(),
        auth=receiver.auth,
        translations=translations,
        on_error=receiver.on_error,
        lifespan=receiver.lifespan,
    )
