"""The OpenAPI 3 document of a service, generated from its endpoint table (``core/http/service.py``).

Each endpoint brings its operation; this adds what the HTTP layer itself answers, the same way for
every service: 401 and 403 (and the bearer security scheme) for a route that needs a role, 400, 408
and 413 for one that reads a body, and the one error schema they share.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from argocd_lifecycle.http.endpoints import Endpoint, ServiceInfo
from argocd_lifecycle.http.errors import ERROR_SCHEMA

ERROR_REF = {"$ref": "#/components/responses/Error"}
_ROLE_ERRORS = ("401", "403")
_BODY_ERRORS = ("400", "408", "413")


def _operation(endpoint: Endpoint) -> dict[str, Any]:
    operation = dict(endpoint.operation)
    responses = dict(operation.get("responses", {}))
    if endpoint.role is not None:
        operation["security"] = [{"bearer": []}]
        for status in _ROLE_ERRORS:
            responses.setdefault(status, ERROR_REF)
    if endpoint.body:
        for status in _BODY_ERRORS:
            responses.setdefault(status, ERROR_REF)
    operation["responses"] = dict(sorted(responses.items()))
    return operation


def openapi_document(info: ServiceInfo, endpoints: Sequence[Endpoint]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for endpoint in endpoints:
        paths.setdefault(endpoint.path, {})[endpoint.method.lower()] = _operation(endpoint)
    components: dict[str, Any] = {key: dict(value) for key, value in info.components.items()}
    components.setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    components["responses"] = {
        "Error": {
            "description": "refused; `message` says why, `reason` is one word for programs",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
    }
    components["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
    head: dict[str, Any] = {"title": info.title, "version": info.version}
    if info.description:
        head["description"] = info.description
    return {"openapi": "3.0.3", "info": head, "components": components, "paths": paths}
