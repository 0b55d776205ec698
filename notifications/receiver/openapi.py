"""The OpenAPI document: shared components here, each operation in its endpoint's docstring (after
``---``), put together by Starlette's SchemaGenerator."""

from __future__ import annotations

from typing import Any

from starlette.schemas import SchemaGenerator

from argocd_lifecycle import __version__
from argocd_lifecycle.notifications.receiver.config import MATCH_KEYS
from argocd_lifecycle.notifications.receiver.wire import (
    ARGOCD_FIELDS,
    EXTERNAL_STRING_FIELDS,
    LIFECYCLE_FIELDS,
    REQUIRED,
)
from argocd_lifecycle.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER


def _strings(fields: tuple[str, ...], required: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": list(required),
        "properties": {f: {"type": "string", "minLength": 1 if f in required else 0} for f in fields},
        "additionalProperties": True,
    }


_EXTERNAL = _strings(EXTERNAL_STRING_FIELDS, REQUIRED["external"])
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

BASE: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "argocd-lifecycle receiver", "version": __version__},
    "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
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
            "ArgocdEvent": _strings(ARGOCD_FIELDS, REQUIRED["argocd"]),
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
            "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}},
        },
        "responses": {
            "Error": {
                "description": "The request was refused; `error` says why",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            }
        },
    },
}

schemas = SchemaGenerator(BASE)
