"""What is delivered: one Notification per outbox item, rendered by each sink in its own format.

A title says who speaks: ``Cluster X: <reason>`` only for the lifecycle source, ``<app> on <cluster>:``
for Argo CD, and ``external:`` first for anything else; it is one line (``text.one_line``). The
"Phase" field is the lifecycle source's; a phase a body claims is shown as reported by its sender.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.notifications.receiver.events import ARGOCD, EXTERNAL, LIFECYCLE, Event
from argocd_lifecycle.notifications.receiver.text import one_line

KINDS = ("alert", "collapsed", "flapping")
_REPORTED_BY = {ARGOCD: "Phase reported by Argo CD", EXTERNAL: "Phase reported by the sender"}


@dataclass(frozen=True)
class Notification:
    kind: str
    title: str
    text: str
    severity: str
    fingerprint: str
    cluster: str = ""
    url: str = ""
    fields: tuple[tuple[str, str], ...] = ()
    count: int = 1
    apps: tuple[str, ...] = ()
    event: dict[str, Any] | None = None  # the body as received, for machine consumers

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "title": self.title,
            "text": self.text,
            "severity": self.severity,
            "fingerprint": self.fingerprint,
            "cluster": self.cluster,
            "url": self.url,
            "fields": [list(f) for f in self.fields],
            "count": self.count,
            "apps": list(self.apps),
            "event": self.event,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Notification:
        return cls(
            kind=data["kind"],
            title=data["title"],
            text=data["text"],
            severity=data["severity"],
            fingerprint=data["fingerprint"],
            cluster=data.get("cluster", ""),
            url=data.get("url", ""),
            fields=tuple((str(k), str(v)) for k, v in data.get("fields", [])),
            count=int(data.get("count", 1)),
            apps=tuple(data.get("apps", [])),
            event=data.get("event"),
        )


def _fields(event: Event) -> tuple[tuple[str, str], ...]:
    body = event.body
    pairs = [
        ("Cluster", event.cluster),
        ("Phase", event.cluster_phase),
        (_REPORTED_BY.get(event.source, ""), event.reported_phase),
        ("Project", event.project),
        ("Namespace", event.namespace),
        ("Application", event.app),
        ("Sync", str(body.get("syncStatus") or "")),
        ("Health", str(body.get("health") or "")),
        ("Revision", event.revision[:12]),
        ("Previous phase", str(body.get("previousPhase") or "")),
        ("Kubernetes", str(body.get("kubernetesVersion") or "")),
        ("Since", event.since),
    ]
    return tuple((k, v) for k, v in pairs if k and v)


def _title(event: Event) -> str:
    if event.source == LIFECYCLE:
        return f"Cluster {event.cluster}: {event.trigger}" if event.cluster else event.trigger
    if event.is_app_level:
        where = f" on {event.cluster}" if event.cluster else ""
        title = f"{event.app}{where}: {event.trigger}"
    else:
        title = f"{event.trigger} on {event.cluster}" if event.cluster else event.trigger
    return f"external: {title}" if event.source == EXTERNAL else title


def alert(event: Event) -> Notification:
    title = one_line(_title(event))
    return Notification(
        kind="alert",
        title=f"[{event.severity}] {title}",
        text=event.message or title,
        severity=event.severity,
        fingerprint=event.fingerprint,
        cluster=event.cluster,
        url=event.url,
        fields=_fields(event),
        event=event.body,
    )


def collapsed(event: Event, count: int, apps: list[str], max_names: int) -> Notification:
    """One message for a cluster that is Unreachable, standing for ``count`` application alerts."""
    shown = sorted(apps)[:max_names]
    more = f" and {len(apps) - len(shown)} more" if len(apps) > len(shown) else ""
    plural = "alert" if count == 1 else "alerts"
    return Notification(
        kind="collapsed",
        title=one_line(f"[critical] Cluster {event.cluster} is Unreachable: {count} application {plural} collapsed"),
        text=f"Applications: {', '.join(shown)}{more}",
        severity="critical",
        fingerprint=f"storm:{event.cluster}",
        cluster=event.cluster,
        fields=(("Cluster", event.cluster), ("Phase", "Unreachable"), ("Alerts", str(count))),
        count=count,
        apps=tuple(shown),
    )


def flapping(event: Event, count: int, window: float) -> Notification:
    base = alert(event)
    minutes = max(1, round(window / 60))
    return Notification(
        kind="flapping",
        title=f"{base.title} is flapping",
        text=f"Fired {count} times in {minutes} min; further occurrences are held back while it flaps. "
        f"Last: {base.text}",
        severity=event.severity,
        fingerprint=f"flap:{event.identity}",
        cluster=event.cluster,
        url=event.url,
        fields=(*base.fields, ("Occurrences", str(count))),
        count=count,
        event=event.body,
    )
