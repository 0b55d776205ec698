"""The fleet overview: ``GET /api/v1/clusters`` rows and the server-rendered ``GET /`` page.

The page is one Jinja2 template (no front-end build). Its rows are in the HTML the server sends; a
small inline script sorts them by column and refreshes them from ``/api/v1/clusters``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TypedDict

import jinja2

from argocd_lifecycle.generators.fleet.view import ClusterState, FleetView
from argocd_lifecycle.generators.service.params import upgrade_gate
from argocd_lifecycle.model import Annotation, Phase
from argocd_lifecycle.times import format_rfc3339

#: certificates expiring sooner than this are highlighted
CERT_WARN_DAYS = 30


class ClusterRow(TypedDict):
    name: str
    server: str
    phase: str
    phaseSince: str | None
    message: str
    kubernetesVersion: str
    #: false while the node facts are unknown; ``nodesUnknown`` says why when the cluster answered
    nodesKnown: bool
    nodesUnknown: str
    nodes: int
    nodesReady: int
    certificateExpiresAt: str | None
    #: the upgrade target named on the Secret ("" when none) and the upgrade gate's verdict on it:
    #: blocking objects (None until the gate decided) and their summary
    upgradeTo: str
    upgradeBlockers: int | None
    upgradeBlocked: str


class FleetDocument(TypedDict):
    synced: bool
    staleSeconds: float
    clusters: list[ClusterRow]


def _stamp(moment: datetime | None) -> str | None:
    return format_rfc3339(moment) if moment is not None else None


def cluster_row(cluster: ClusterState) -> ClusterRow:
    blockers, _, blocked, _ = upgrade_gate(cluster)
    return {
        "name": cluster.name,
        "server": cluster.server,
        "phase": cluster.phase.value,
        "phaseSince": _stamp(cluster.phase_since),
        "message": cluster.message,
        "kubernetesVersion": cluster.git_version.removeprefix("v"),
        "nodesKnown": cluster.nodes_known,
        "nodesUnknown": cluster.nodes_unknown,
        "nodes": cluster.nodes,
        "nodesReady": cluster.nodes_ready,
        "certificateExpiresAt": _stamp(cluster.certificate_expires_at),
        "upgradeTo": cluster.annotations.get(Annotation.UPGRADE_TO, ""),
        "upgradeBlockers": int(blockers) if blockers else None,
        "upgradeBlocked": blocked,
    }


def fleet_document(fleet: FleetView) -> FleetDocument:
    return {
        "synced": fleet.synced(),
        "staleSeconds": round(fleet.stale_seconds(), 1),
        "clusters": [cluster_row(c) for c in fleet.clusters()],
    }


def duration(seconds: float) -> str:
    """``45s``, ``12m``, ``3h 5m``, ``4d 2h``: coarse on purpose, it is read at a glance."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h {s % 3600 // 60}m"
    return f"{s // 86400}d {s % 86400 // 3600}h"


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def make_environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("argocd_lifecycle.generators.service", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["duration"] = duration
    return env


class FleetPage:
    def __init__(self, refresh_seconds: int) -> None:
        self._template = make_environment().get_template("fleet.html")
        self._refresh_seconds = refresh_seconds

    def render(self, fleet: FleetView, now: datetime | None = None) -> str:
        now = _aware(now or datetime.now(UTC))
        rows: list[dict[str, object]] = []
        counts = {phase.value: 0 for phase in Phase}
        for cluster in fleet.clusters():
            since = cluster.phase_since
            expires = cluster.certificate_expires_at
            rows.append(
                {
                    **cluster_row(cluster),
                    "inPhaseSeconds": (now - _aware(since)).total_seconds() if since else None,
                    "certDays": (_aware(expires) - now).total_seconds() / 86400 if expires else None,
                }
            )
            counts[cluster.phase.value] += 1
        return self._template.render(
            rows=rows,
            counts=counts,
            blocked=sum(1 for r in rows if r["upgradeBlockers"]),
            synced=fleet.synced(),
            stale_seconds=fleet.stale_seconds(),
            refresh_seconds=self._refresh_seconds,
            cert_warn_days=CERT_WARN_DAYS,
            now=format_rfc3339(now),
        )
