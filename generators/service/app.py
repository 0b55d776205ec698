"""The plugin-generator HTTP service: a FleetView served to Argo CD ApplicationSets.

Built the way every service here is (``core/http/service.py``): ``GeneratorService`` holds the state and
its metrics (in the registry it is given), ``GeneratorService.endpoints`` is the route table::

    POST /api/v1/getparams.execute   Argo CD's plugin generator protocol (bearer role "argocd")
    GET  /api/v1/clusters            the fleet as JSON (the fleet page's data)
    GET  /api/v1/rollouts            each ApplicationSet's rollout as JSON (the fleet page's rollouts)
    GET  /                           the fleet page
    GET  /healthz                    liveness
    GET  /readyz                     readiness: every watch listed, none broken past --max-staleness
    GET  /metrics                    Prometheus exposition of the service's registry
    GET  /openapi.json               the OpenAPI document (added by the layer)

Every refusal is JSON ``{"message": ..., "reason": ...}``: Argo CD shows that message on the
ApplicationSet and keeps its Applications, where a 200 with fewer clusters would delete some.
"""

from __future__ import annotations

import logging
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

from argocd_lifecycle.generators.fleet.view import Baseline, FleetView, HoldReporter
from argocd_lifecycle.generators.service.answers import Answer, ParamsService, Rollouts
from argocd_lifecycle.generators.service.errors import InputError, NotPlaced, ServiceError
from argocd_lifecycle.generators.service.fleet_page import FleetPage, fleet_document, rollouts_document
from argocd_lifecycle.generators.service.guard import DropSettling, MassDropRefused
from argocd_lifecycle.generators.service.inputs import parse_request
from argocd_lifecycle.generators.service.openapi import INFO, OPERATIONS
from argocd_lifecycle.generators.service.readiness import Watch, Watches, problems
from argocd_lifecycle.generators.service.settings import ServiceSettings
from argocd_lifecycle.http.auth import BearerAuth
from argocd_lifecycle.http.body import request_body
from argocd_lifecycle.http.endpoints import Endpoint
from argocd_lifecycle.http.errors import HttpError
from argocd_lifecycle.http.service import build_app as build_service_app
from argocd_lifecycle.logs import redact

log = logging.getLogger(__name__)
ROLE = "argocd"  # the one bearer role: Argo CD's ApplicationSet controller
EXECUTE = "/api/v1/getparams.execute"

# the most specific first: MassDropRefused and DropSettling are Unavailable
_REASONS: tuple[tuple[type[ServiceError], str], ...] = (
    (MassDropRefused, "mass_drop"),
    (DropSettling, "drop_settling"),
    (NotPlaced, "not_placed"),
    (InputError, "bad_request"),
)


def _http_error(exc: ServiceError) -> HttpError:
    reason = next((word for kind, word in _REASONS if isinstance(exc, kind)), "unavailable")
    return HttpError(exc.status, reason, exc.message)


class ServiceMetrics:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.requests = Counter(
            "argocd_lifecycle_getparams_requests",
            "getparams.execute requests by HTTP status code",
            ["code"],
            registry=registry,
        )
        self.duration = Histogram(
            "argocd_lifecycle_getparams_duration_seconds",
            "Time to answer getparams.execute",
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=registry,
        )
        self.mass_drop_refusals = Counter(
            "argocd_lifecycle_getparams_mass_drop_refusals", "Answers refused by the mass-drop guard", registry=registry
        )
        self.held = Gauge(
            "argocd_lifecycle_getparams_held",
            "1 while the mass-drop guard holds the ApplicationSet's answer",
            ["applicationset"],
            registry=registry,
        )


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


class GeneratorService:
    """Everything the service holds; the routes are its methods.

    ``baseline`` is what the mass-drop guard compares answers with (the Applications cache; without
    one, the answers this process gave), ``reporter`` where a held answer is told. ``registry`` takes
    the service's metrics (``generator serve`` passes the process-wide one, where the fleet's are);
    ``watches`` the watches readiness depends on beside the Secrets and the Applications (readiness.py)."""

    def __init__(
        self,
        fleet: FleetView,
        settings: ServiceSettings,
        *,
        baseline: Baseline | None = None,
        reporter: HoldReporter | None = None,
        registry: CollectorRegistry | None = None,
        watches: Watches | None = None,
        rollouts: Rollouts | None = None,
    ) -> None:
        self.fleet, self.settings = fleet, settings
        self.watches: Watches = watches or (lambda: ())
        self.registry = registry if registry is not None else CollectorRegistry(auto_describe=True)
        self.metrics = ServiceMetrics(self.registry)
        self.params = ParamsService(
            fleet,
            settings.policy,
            max_staleness=settings.max_staleness,
            max_drop_percent=settings.max_drop_percent,
            baseline=baseline,
            reporter=reporter,
            settle=settings.drop_settle,
            rollouts=rollouts,
        )
        self.auth = BearerAuth({ROLE: settings.token}, unauthenticated=[ROLE] if settings.insecure_no_auth else [])
        self.page = FleetPage(settings.page_refresh_seconds)
        self._held_shown: set[str] = set()

    def _show_held(self, appset: str) -> None:
        if appset in self.params.guard.held():
            self._held_shown.add(appset)
            self.metrics.held.labels(appset).set(1)
        elif appset in self._held_shown:
            self.metrics.held.labels(appset).set(0)

    async def execute(self, request: Request) -> Response:
        wanted = parse_request(request_body(request))
        where = self.params.place(wanted)
        try:
            result = self.params.execute(wanted, where)
        finally:
            self._show_held(where.key)
        return _answer_response(result, request.headers.get("accept-encoding", ""))

    def _observe_execute(self, status: int, seconds: float) -> None:
        self.metrics.requests.labels(str(status)).inc()
        self.metrics.duration.observe(seconds)

    async def clusters(self, request: Request) -> Response:
        return JSONResponse(fleet_document(self.fleet))

    async def rollouts(self, request: Request) -> Response:
        """Each rollout as this replica holds it (no API call); an empty list without Kubernetes."""
        keeper = self.params.rollouts
        return JSONResponse(rollouts_document(keeper.summaries() if keeper is not None else ()))

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "synced": self.fleet.synced()})

    async def readyz(self, request: Request) -> Response:
        baseline = self.params.baseline
        watches = [
            Watch("cluster Secret", self.fleet.synced(), self.fleet.stale_seconds()),
            Watch("Application", baseline.synced(), baseline.stale_seconds()),
            *self.watches(),
        ]
        found = problems(watches, self.settings.max_staleness)
        if found:
            raise HttpError(503, "not_ready", "not ready: " + "; ".join(found))
        return JSONResponse({"status": "ready"})

    async def fleet_html(self, request: Request) -> Response:
        keeper = self.params.rollouts
        return HTMLResponse(self.page.render(self.fleet, rollouts=keeper.summaries() if keeper is not None else None))

    async def metrics_endpoint(self, request: Request) -> Response:
        return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)

    def endpoints(self) -> list[Endpoint]:
        ops = OPERATIONS
        return [
            Endpoint(
                "POST",
                EXECUTE,
                self.execute,
                ops["execute"],
                role=ROLE,
                body=True,
                max_body=self.settings.max_body_bytes,
                observe=self._observe_execute,
            ),
            Endpoint("GET", "/api/v1/clusters", self.clusters, ops["clusters"]),
            Endpoint("GET", "/api/v1/rollouts", self.rollouts, ops["rollouts"]),
            Endpoint("GET", "/healthz", self.healthz, ops["healthz"]),
            Endpoint("GET", "/readyz", self.readyz, ops["readyz"]),
            Endpoint("GET", "/metrics", self.metrics_endpoint, ops["metrics"]),
            Endpoint("GET", "/", self.fleet_html, ops["fleet_page"]),
        ]

    def on_error(self, request: Request, error: HttpError) -> None:
        if error.reason == "mass_drop":
            self.metrics.mass_drop_refusals.inc()
        level = logging.WARNING if error.status >= 500 else logging.INFO
        log.log(level, "%s %s %d: %s", request.method, request.url.path, error.status, redact(error.message))


def build_app(
    fleet: FleetView,
    settings: ServiceSettings,
    *,
    baseline: Baseline | None = None,
    reporter: HoldReporter | None = None,
    registry: CollectorRegistry | None = None,
    watches: Watches | None = None,
    rollouts: Rollouts | None = None,
) -> Starlette:
    """The ASGI app; serve it with ``core/http/server.py`` (one worker is plenty: answers are cached per
    fleet change)."""
    service = GeneratorService(
        fleet, settings, baseline=baseline, reporter=reporter, registry=registry, watches=watches, rollouts=rollouts
    )
    translations: dict[type[Exception], Any] = {ServiceError: _http_error}
    return build_service_app(
        INFO, service.endpoints(), auth=service.auth, translations=translations, on_error=service.on_error
    )
