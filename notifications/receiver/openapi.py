"""What the receiver's OpenAPI document says: its components and one operation per endpoint. The document
itself is generated from the endpoint table (``Receiver.endpoints`` in app.py) by ``core/http/openapi.py``,
which adds the refusals every service shares (401/403 for a role, 400/408/413 for a body)."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle import __version__
from argocd_lifecycle.http.endpoints import ServiceInfo
from argocd_lifecycle.notifications.receiver.config import MATCH_KEYS
from argocd_lifecycle.notifications.receiver.wire import (
    ARGOCD_FIELDS,
    EXTERNAL_STRING_FIELDS,
    LIFECYCLE_FIELDS,
    REQUIRED,
    SEVERITIES,
)
from argocd_lifecycle.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER


def _strings(fields: tuple[str, ...], required: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": list(required),
        "properties": {f: {"type": "string", "minLength": 1 if f in required else 0} for f in fields},
        "additionalProperties": True,
    }


def _json(schema: str | dict[str, Any], description: str) -> dict[str, Any]:
    body = {"$ref": f"#/components/schemas/{schema}"} if isinstance(schema, str) else schema
    return {"description": description, "content": {"application/json": {"schema": body}}}


def _request(schema: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}


_SEVERITY = {"type": "string", "description": f"one of {', '.join(SEVERITIES)} (any case); else 400"}
_ARGOCD = _strings(ARGOCD_FIELDS, REQUIRED["argocd"])
_ARGOCD["properties"]["severity"] = _SEVERITY
_EXTERNAL = _strings(EXTERNAL_STRING_FIELDS, REQUIRED["external"])
_EXTERNAL["properties"]["severity"] = _SEVERITY
_EXTERNAL["properties"]["url"] = {"type": "string", "description": "kept in the event as received; never a link"}
_EXTERNAL["properties"]["labels"] = {"type": "object", "additionalProperties": {"type": "string"}}
_LIST = {"type": "array", "items": {"type": "string"}, "minItems": 1}
_SILENCE_PROPS: dict[str, Any] = {
    "matchers": {
        "type": "object",
        "minProperties": 1,
        "properties": {k: _LIST for k in MATCH_KEYS},
        "additionalProperties": False,
    },
    "comment": {"type": "string", "maxLength": 1024},
    "createdBy": {"type": "string", "maxLength": 1024},
}
_ERROR = {"$ref": "#/components/responses/Error"}
_SIGNED = [{"$ref": "#/components/parameters/timestamp"}, {"$ref": "#/components/parameters/signature"}]
_ACCEPTED = {"202": _json("Accepted", "Accepted"), "401": _ERROR}
# 403: signed with the other sender's secret (wrong_secret), or the route's secret is not configured
_SIGNED_ACCEPTED = {**_ACCEPTED, "403": _ERROR}
_ITEM_ID = {"name": "item_id", "in": "path", "required": True, "schema": {"type": "string"}}

INFO = ServiceInfo(
    title="argocd-lifecycle receiver",
    version=__version__,
    components={
        "parameters": {
            "timestamp": {
                "name": TIMESTAMP_HEADER,
                "in": "header",
                "required": True,
                "schema": {"type": "string", "pattern": "^[0-9]{1,12}$"},
                "description": "Unix seconds; rejected when more than 300 s from the receiver's clock",
            },
            "signature": {
                "name": SIGNATURE_HEADER,
                "in": "header",
                "required": True,
                "schema": {"type": "string", "pattern": "^sha256=[0-9a-f]{64}$"},
                "description": 'sha256=<hex HMAC-SHA256(secret, timestamp + "." + raw body)>',
            },
        },
        "schemas": {
            "ArgocdEvent": _ARGOCD,
            "LifecycleEvent": _strings(LIFECYCLE_FIELDS, REQUIRED["lifecycle"]),
            "ExternalEvent": _EXTERNAL,
            "SilenceRequest": {
                "type": "object",
                "required": ["matchers"],
                "properties": {
                    **_SILENCE_PROPS,
                    "duration": {"type": "string", "example": "2h"},
                    "expiresAt": {"type": "string", "format": "date-time"},
                },
                "additionalProperties": True,
            },
            "Silence": {
                "type": "object",
                "required": ["id", "matchers", "startsAt", "expiresAt"],
                "properties": {
                    **_SILENCE_PROPS,
                    "id": {"type": "string"},
                    "startsAt": {"type": "string", "format": "date-time"},
                    "expiresAt": {"type": "string", "format": "date-time"},
                },
            },
            "SilenceList": {
                "type": "object",
                "required": ["silences"],
                "properties": {"silences": {"type": "array", "items": {"$ref": "#/components/schemas/Silence"}}},
            },
            "Accepted": {
                "type": "object",
                "required": ["status", "fingerprint"],
                "properties": {
                    "status": {
                        "type": "string",
                        "enum": ["queued", "duplicate", "silenced", "collapsed", "flapping", "unrouted"],
                    },
                    "fingerprint": {"type": "string"},
                    "receivers": {"type": "array", "items": {"type": "string"}},
                    "silence": {"type": "string"},
                },
            },
            "Replayed": {
                "type": "object",
                "required": ["id", "state"],
                "properties": {"id": {"type": "string"}, "state": {"type": "string", "enum": ["pending"]}},
            },
        },
    },
)

OPERATIONS: dict[str, dict[str, Any]] = {
    "argocd_event": {
        "operationId": "acceptArgocdEvent",
        "summary": "Accept an Argo CD notification (the catalog's webhook body; ingest token)",
        "requestBody": _request("ArgocdEvent"),
        "responses": _ACCEPTED,
    },
    "lifecycle_event": {
        "operationId": "acceptLifecycleEvent",
        "summary": "Accept a cluster lifecycle transition signed with the lifecycle secret (the generator's)",
        "parameters": _SIGNED,
        "requestBody": _request("LifecycleEvent"),
        "responses": _SIGNED_ACCEPTED,
    },
    "external_event": {
        "operationId": "acceptExternalEvent",
        "summary": "Accept an event from any other system, signed with the external secret",
        "parameters": _SIGNED,
        "requestBody": _request("ExternalEvent"),
        "responses": _SIGNED_ACCEPTED,
    },
    "list_silences": {
        "operationId": "listSilences",
        "summary": "Silences that have not expired (admin token)",
        "responses": {"200": _json("SilenceList", "The silences")},
    },
    "create_silence": {
        "operationId": "createSilence",
        "summary": "Create a silence from matchers and a duration or an expiry time (admin token)",
        "requestBody": _request("SilenceRequest"),
        "responses": {"201": _json("Silence", "Created")},
    },
    "delete_silence": {
        "operationId": "deleteSilence",
        "summary": "Expire a silence now (admin token)",
        "parameters": [{"name": "silence_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"204": {"description": "Deleted"}, "404": _ERROR},
    },
    "outbox": {
        "operationId": "showOutbox",
        "summary": "Outbox counts, the pending items and the dead-letter list (admin token)",
        "parameters": [
            {
                "name": "limit",
                "in": "query",
                "required": False,
                "schema": {"type": "integer", "minimum": 1, "maximum": 1000},
            }
        ],
        "responses": {"200": _json({"type": "object"}, "The outbox"), "400": _ERROR},
    },
    "replay": {
        "operationId": "replayDeadLetter",
        "summary": "Send a dead letter again: it is pending once more, with its attempts reset (admin token)",
        "parameters": [_ITEM_ID],
        "responses": {"202": _json("Replayed", "Queued again"), "404": _ERROR},
    },
    "healthz": {
        "operationId": "health",
        "summary": "Liveness and state-store reachability",
        "responses": {"200": _json({"type": "object"}, "OK"), "503": _ERROR},
    },
    "metrics": {
        "operationId": "metrics",
        "summary": "Prometheus metrics",
        "responses": {
            "200": {"description": "Prometheus text format", "content": {"text/plain": {"schema": {"type": "string"}}}}
        },
    },
}
