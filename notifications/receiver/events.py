"""The one event model both payload kinds are normalised into, and its fingerprint."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from argocd_lifecycle.lifecycle_event import LifecycleEventBody
from argocd_lifecycle.model import Reason
from argocd_lifecycle.notifications.receiver.wire import (
    ArgocdWebhookBody,
    ExternalEventBody,
)

SEVERITIES = ("critical", "warning", "info")
# Severity of a lifecycle transition, by Event reason; anything unlisted is "info".
_LIFECYCLE_SEVERITY: dict[str, str] = {
    Reason.UNREACHABLE: "critical",
    Reason.DEGRADED: "warning",
    Reason.CERTIFICATE_EXPIRING: "warning",
    Reason.DECOMMISSIONING: "warning",
    Reason.REMOVED: "warning",
}


@dataclass(frozen=True, slots=True)
class Event:
    source: str  # argocd | lifecycle | external
    trigger: str
    severity: str
    cluster: str = ""
    app: str = ""
    namespace: str = ""
    project: str = ""
    cluster_phase: str = ""
    revision: str = ""
    since: str = ""
    message: str = ""
    url: str = ""
    received_at: float = 0.0
    body: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)  # as received

    @property
    def is_app_level(self) -> bool:
        return bool(self.app)

    def labels(self) -> dict[str, str]:
        """The values routes and silences match on."""
        return {
            "severity": self.severity,
            "trigger": self.trigger,
            "cluster": self.cluster,
            "clusterPhase": self.cluster_phase,
            "project": self.project,
            "app": self.app,
            "namespace": self.namespace,
        }

    @property
    def identity(self) -> str:
        """Which alert this is, across occurrences: (cluster, app, trigger). Flap counting keys on it."""
        return _digest(self.cluster, self.namespace, self.app, self.trigger)

    @property
    def fingerprint(self) -> str:
        """One occurrence: the identity plus the revision, or the phase-since of a phase change."""
        return _digest(self.cluster, self.namespace, self.app, self.trigger, self.revision or self.since)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def _severity(value: str | None, default: str) -> str:
    value = (value or "").strip().lower()
    return value or default


def _app_url(base: str, namespace: str, app: str) -> str:
    """The Application's page in the Argo CD UI (``argocdUrl`` is the UI's base URL)."""
    if not base.startswith(("http://", "https://")):
        return ""
    base = base.rstrip("/")
    return f"{base}/applications/{namespace}/{app}" if namespace and app else base


def _app_event(source: str, body: ArgocdWebhookBody | ExternalEventBody, url: str, now: float) -> Event:
    """The fields the Argo CD and the external body share (same names, same meaning)."""
    return Event(
        source=source,
        trigger=body.get("trigger", ""),
        severity=_severity(body.get("severity"), "warning"),
        cluster=body.get("cluster") or "",
        app=body.get("app") or "",
        namespace=body.get("namespace") or "",
        project=body.get("project") or "",
        cluster_phase=body.get("clusterPhase") or "",
        revision=body.get("revision") or "",
        message=body.get("message") or "",
        url=url,
        received_at=now,
        body=dict(body),
    )


def from_argocd(body: ArgocdWebhookBody, now: float) -> Event:
    url = _app_url(body.get("argocdUrl") or "", body.get("namespace") or "", body.get("app", ""))
    return _app_event("argocd", body, url, now)


def from_lifecycle(body: LifecycleEventBody, now: float) -> Event:
    reason = body.get("reason", "")
    default = _LIFECYCLE_SEVERITY.get(reason, "info")
    return Event(
        source="lifecycle",
        trigger=reason,
        severity=default,
        cluster=body.get("cluster", ""),
        cluster_phase=body.get("phase", ""),
        since=body.get("since") or "",
        message=body.get("message") or "",
        url=body.get("server") or "",
        received_at=now,
        body=dict(body),
    )


def from_external(body: ExternalEventBody, now: float) -> Event:
    return _app_event("external", body, body.get("url") or "", now)
