"""The route table's values: an ``Endpoint`` per route and the ``ServiceInfo`` of the document. The
contract ``build_app`` (``service.py``) builds the app from and ``openapi.py`` writes the document from,
apart from both."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from argocd_lifecycle.http.body import MAX_BODY_BYTES
from argocd_lifecycle.http.errors import HttpError

Handler = Callable[[Request], Awaitable[Response]]
#: called with every refusal, for a service's metrics and logs
OnError = Callable[[Request, HttpError], None]
#: called after every request of one endpoint with the status and the seconds it took
Observe = Callable[[int, float], None]
#: a service's own exception types -> the HttpError each one means
Translations = Mapping[type[Exception], Callable[[Any], HttpError]]


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    handler: Handler
    #: the OpenAPI operation (summary, operationId, requestBody, responses); the standard refusals
    #: (401/403 for a role, 400/408/413 for a body) are added to its responses
    operation: Mapping[str, Any] = field(default_factory=dict)
    #: the bearer role the route needs (``core/http/auth.py``); None: open
    role: str | None = None
    #: it takes a JSON body: the layer reads it (at most ``max_body`` bytes, else 413), checks its depth
    #: (400) and hands it to the handler (``request_body``), after the role and ``admit`` checks
    body: bool = False
    max_body: int = MAX_BODY_BYTES
    #: refuses (raises HttpError) before anything of the body is read: a route that is off
    admit: Callable[[], None] | None = None
    observe: Observe | None = None


@dataclass(frozen=True)
class ServiceInfo:
    title: str
    version: str
    description: str = ""
    #: ``components`` of the OpenAPI document (schemas, parameters) besides the error shape
    components: Mapping[str, Any] = field(default_factory=dict)
