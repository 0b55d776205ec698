"""The one event model all three payload kinds are normalised into, and its fingerprint.

Who may say what: only the generator's signed lifecycle events carry a cluster's phase
(``cluster_phase``); the phase an Argo CD body or an external event names is what that sender
reported (``reported_phase``: an Application annotation, or another system's claim), shown as such
and never state. Links are built from the receiver's configuration (``links.py``), never a body.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from argocd_lifecycle.lifecycle_event import LifecycleEventBody
from argocd_lifecycle.model import Reason
from argocd_lifecycle.notifications.receiver.links import Links
from argocd_lifecycle.notifications.receiver.wire import ArgocdWebhookBody, ExternalEventBody, severity

ARGOCD, LIFECYCLE, EXTERNAL = "argocd", "lifecycle", "external"
NO_LINKS = Links()
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
    #: the phase the lifecycle source gave the cluster: a lifecycle event's own, else the receiver's
    #: record of the last one (filled in by the pipeline)
    cluster_phase: str = ""
    #: the phase an Argo CD body or an external event claims: shown, never acted on
    reported_phase: str = ""
    #: a lifecycle event's cluster API server: an Application may name its cluster by it
    server: str = ""
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


def _app_event(source: str, body: ArgocdWebhookBody | ExternalEventBody, links: Links, now: float) -> Event:
    """The fields the Argo CD and the external body share (same names, same meaning)."""
    app, namespace = body.get("app") or "", body.get("namespace") or ""
    return Event(
        source=source,
        trigger=body.get("trigger", ""),
        severity=severity(body.get("severity")) or "warning",
        cluster=body.get("cluster") or "",
        app=app,
        namespace=namespace,
        project=body.get("project") or "",
        reported_phase=body.get("clusterPhase") or "",
        revision=body.get("revision") or "",
        message=body.get("message") or "",
        url=links.application(namespace, app) if app else "",
        received_at=now,
        body=dict(body),
    )


def from_argocd(body: ArgocdWebhookBody, now: float, links: Links = NO_LINKS) -> Event:
    return _app_event(ARGOCD, body, links, now)


def from_lifecycle(body: LifecycleEventBody, now: float, links: Links = NO_LINKS) -> Event:
    reason = body.get("reason", "")
    default = _LIFECYCLE_SEVERITY.get(reason, "info")
    return Event(
        source=LIFECYCLE,
        trigger=reason,
        severity=default,
        cluster=body.get("cluster", ""),
        cluster_phase=body.get("phase", ""),
        server=body.get("server") or "",
        since=body.get("since") or "",
        message=body.get("message") or "",
        url=links.cluster(body.get("server") or ""),
        received_at=now,
        body=dict(body),
    )


def from_external(body: ExternalEventBody, now: float, links: Links = NO_LINKS) -> Event:
    return _app_event(EXTERNAL, body, links, now)
