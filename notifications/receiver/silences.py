"""Silences: label matchers with an expiry, created through the API and kept in the state store."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.notifications.receiver.config import MATCH_KEYS
from argocd_lifecycle.notifications.receiver.routing import matches
from argocd_lifecycle.notifications.receiver.wire import BadPayload
from argocd_lifecycle.times import format_rfc3339, parse_duration, parse_rfc3339

MAX_COMMENT = 1024


@dataclass(frozen=True)
class Silence:
    id: str
    matchers: dict[str, frozenset[str]]
    starts_at: float
    expires_at: float
    comment: str = ""
    created_by: str = ""

    def active(self, now: float) -> bool:
        return self.starts_at <= now < self.expires_at

    def silences(self, labels: Mapping[str, str]) -> bool:
        return matches(self.matchers, labels)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "matchers": {k: sorted(v) for k, v in self.matchers.items()},
            "startsAt": format_rfc3339(self.starts_at),
            "expiresAt": format_rfc3339(self.expires_at),
            "comment": self.comment,
            "createdBy": self.created_by,
        }

    def to_store(self) -> dict[str, Any]:
        """Exact times for the store (the API form rounds to seconds)."""
        return {**self.to_json(), "startsAtUnix": self.starts_at, "expiresAtUnix": self.expires_at}

    @classmethod
    def from_store(cls, data: Mapping[str, Any]) -> Silence:
        return cls(
            id=data["id"],
            matchers={k: frozenset(v) for k, v in data["matchers"].items()},
            starts_at=float(data["startsAtUnix"]),
            expires_at=float(data["expiresAtUnix"]),
            comment=data.get("comment", ""),
            created_by=data.get("createdBy", ""),
        )


def _matchers(raw: Any) -> dict[str, frozenset[str]]:
    if not isinstance(raw, dict) or not raw:
        raise BadPayload('\'matchers\' must be a non-empty object such as {"app": ["shop"]}')
    out: dict[str, frozenset[str]] = {}
    for key, values in raw.items():
        if key not in MATCH_KEYS:
            raise BadPayload(f"matchers: unknown key {key!r}; use {', '.join(MATCH_KEYS)}")
        if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
            raise BadPayload(f"matchers.{key} must be a non-empty list of strings")
        out[key] = frozenset(values)
    return out


def from_request(data: Mapping[str, Any], now: float) -> Silence:
    """A new silence from a ``POST /v1/silences`` body; BadPayload names the wrong field."""
    matchers = _matchers(data.get("matchers"))
    duration, expires = data.get("duration"), data.get("expiresAt")
    if (duration is None) == (expires is None):
        raise BadPayload("give exactly one of 'duration' (like \"2h\") or 'expiresAt' (RFC3339)")
    try:
        if duration is not None:
            if not isinstance(duration, str):
                raise ValueError("'duration' must be a string like \"2h\"")
            expires_at = now + parse_duration(duration)
        else:
            if not isinstance(expires, str):
                raise ValueError("'expiresAt' must be an RFC3339 string")
            expires_at = parse_rfc3339(expires)
    except (ValueError, OverflowError) as exc:
        raise BadPayload(str(exc)) from exc
    if expires_at <= now:
        raise BadPayload("the silence would already be expired")
    comment, created_by = data.get("comment", ""), data.get("createdBy", "")
    if not isinstance(comment, str) or not isinstance(created_by, str):
        raise BadPayload("'comment' and 'createdBy' must be strings")
    if len(comment) > MAX_COMMENT or len(created_by) > MAX_COMMENT:
        raise BadPayload(f"'comment' and 'createdBy' are limited to {MAX_COMMENT} characters")
    return Silence(uuid.uuid4().hex, matchers, now, expires_at, comment, created_by)


def first_match(silences: Iterable[Silence], labels: Mapping[str, str], now: float) -> Silence | None:
    return next((s for s in silences if s.active(now) and s.silences(labels)), None)
