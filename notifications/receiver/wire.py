"""Wire payloads (TypedDicts) and their checks: unknown fields are kept, wrong types are rejected.

- ``ArgocdWebhookBody``: the catalog's webhook template body (notifications-controller).
- ``LifecycleEventBody``: a lifecycle transition posted by the generator (``argocd_lifecycle.lifecycle_event``).
- ``ExternalEventBody``: anything else that can sign a request.
- ``SilenceRequest``: ``POST /v1/silences``.
"""

from __future__ import annotations

from typing import Any, TypedDict

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.http.json_body import parse_json
from argocd_lifecycle.lifecycle_event import LifecycleEventBody


class BadPayload(LifecycleError):
    """A request body the API cannot take: answered with 400 and this message."""


class ArgocdWebhookBody(TypedDict, total=False):
    trigger: str
    severity: str
    app: str
    namespace: str
    project: str
    cluster: str
    clusterPhase: str
    revision: str
    syncStatus: str
    health: str
    message: str
    argocdUrl: str


class ExternalEventBody(TypedDict, total=False):
    trigger: str
    severity: str
    cluster: str
    clusterPhase: str
    app: str
    namespace: str
    project: str
    revision: str
    message: str
    url: str
    labels: dict[str, str]


class SilenceRequest(TypedDict, total=False):
    matchers: dict[str, list[str]]
    duration: str
    expiresAt: str
    comment: str
    createdBy: str


ARGOCD_FIELDS = tuple(ArgocdWebhookBody.__annotations__)
LIFECYCLE_FIELDS = tuple(LifecycleEventBody.__annotations__)
EXTERNAL_STRING_FIELDS = tuple(k for k in ExternalEventBody.__annotations__ if k != "labels")
REQUIRED = {"argocd": ("trigger", "app"), "lifecycle": ("reason", "cluster", "phase"), "external": ("trigger",)}
MAX_FIELD = 16 * 1024  # one string field; the whole body is capped at 1 MiB by the app
#: what a sender may call its alert (the catalog's severities); any case, blanks around allowed
SEVERITIES = ("critical", "warning", "info", "resolved")


def severity(value: str | None) -> str:
    """The severity a checked body names, normalised ("" when it names none)."""
    return (value or "").strip().lower()


def parse_object(raw: bytes) -> dict[str, Any]:
    """The JSON object in ``raw``; HttpError 400 for malformed or too deeply nested JSON, BadPayload for
    any other value."""
    data = parse_json(raw)
    if not isinstance(data, dict):
        raise BadPayload("body must be a JSON object")
    return data


def check_strings(data: dict[str, Any], fields: tuple[str, ...], required: tuple[str, ...]) -> None:
    """Declared fields must be strings (nulls count as absent); required ones non-empty."""
    for key in fields:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise BadPayload(f"field {key!r} must be a string, got {type(value).__name__}")
        if len(value) > MAX_FIELD:
            raise BadPayload(f"field {key!r} is longer than {MAX_FIELD} characters")
        _check_unicode(key, value)
    missing = [key for key in required if not data.get(key)]
    if missing:
        raise BadPayload(f"missing required field(s): {', '.join(missing)}")
    if "severity" in fields and severity(data.get("severity")) not in ("", *SEVERITIES):
        # the severity is the first word of a message's title: free text would let a sender write the title
        raise BadPayload(f"field 'severity' must be one of {', '.join(SEVERITIES)}")


def _check_unicode(key: str, value: str) -> None:
    """JSON may escape half of a surrogate pair (``\\ud800``); no service can be sent such text."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadPayload(f"field {key!r} is not valid Unicode (a lone surrogate escape)") from None


def check_argocd(data: dict[str, Any]) -> ArgocdWebhookBody:
    check_strings(data, ARGOCD_FIELDS, REQUIRED["argocd"])
    return data  # type: ignore[return-value]  # checked above; extra keys are kept on purpose


def check_lifecycle(data: dict[str, Any]) -> LifecycleEventBody:
    check_strings(data, LIFECYCLE_FIELDS, REQUIRED["lifecycle"])
    return data  # type: ignore[return-value]


def check_external(data: dict[str, Any]) -> ExternalEventBody:
    check_strings(data, EXTERNAL_STRING_FIELDS, REQUIRED["external"])
    labels = data.get("labels")
    if labels is not None and (not isinstance(labels, dict) or not all(isinstance(v, str) for v in labels.values())):
        raise BadPayload("field 'labels' must be an object of strings")
    for key, value in (labels or {}).items():
        _check_unicode("labels", key + value)
    return data  # type: ignore[return-value]
