"""The fleet overview: ``GET /api/v1/clusters`` rows, ``GET /api/v1/rollouts`` rows and the server-rendered
``GET /`` page.

The page is one Jinja2 template (no front-end build). Its rows are in the HTML the server sends; a
small inline script sorts the clusters by column and refreshes both tables from the two routes. The
rollouts come from what the generator holds (generators/rollout/summary.py): no API call per view, at most
``MAX_ROLLOUTS`` rows (by ApplicationSet name; ``more`` counts the rest).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TypedDict

import jinja2

from argocd_lifecycle.generators.fleet.view import ClusterState, FleetView
from argocd_lifecycle.generators.rollout.summary import RolloutSummary
from argocd_lifecycle.generators.service.params import upgrade_gate
from argocd_lifecycle.model import Annotation, Phase
from argocd_lifecycle.times import format_rfc3339

#: certificates expiring sooner than this are highlighted
CERT_WARN_DAYS = 30
#: rollouts listed on the page and by ``GET /api/v1/rollouts``
MAX_ROLLOUTS = 500
#: the status of a rollout whose state this replica cannot show (none written yet, or unreadable)
UNKNOWN = "Unknown"


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


class RolloutRow(TypedDict):
    applicationSet: str
    #: Rolling, Baking, Paused, Done, Aborted; Unknown without a readable state (``unreadable`` says why)
    status: str
    revision: str
    #: what the clusters ran before ("" when nothing ran)
    previous: str
    #: index of the wave being rolled (the number of waves once done); None when unknown
    wave: int | None
    #: its name, from this replica's last plan ("" when not known here or done)
    waveName: str
    #: how many waves, from this replica's last plan (None when it has not planned it)
    waves: int | None
    #: when the status or the wave last changed
    since: str | None
    #: why it paused or was aborted
    reason: str
    #: a backwards revision the rollout refused
    refused: str
    #: clusters given the revision (from the kept state)
    given: int | None
    #: of the last plan: clusters Synced and Healthy at the revision, clusters in all, per rollout.state
    clustersAtRevision: int | None
    clusters: int | None
    clusterStates: dict[str, int]
    plannedAt: str | None
    unreadable: str


class RolloutsDocument(TypedDict):
    rollouts: list[RolloutRow]
    #: rollouts beyond ``MAX_ROLLOUTS`` not listed
    more: int


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


def rollout_row(summary: RolloutSummary) -> RolloutRow:
    state, seen = summary.state, summary.planned
    if state is None:
        why = summary.unreadable or "no state written yet: the leader writes it when it answers the ApplicationSet"
    return {
        "applicationSet": summary.appset,
        "status": state.status.value if state else UNKNOWN,
        "revision": state.revision if state else "",
        "previous": state.previous if state else "",
        "wave": state.wave if state else None,
        "waveName": summary.wave_name,
        "waves": len(seen.waves) if seen else None,
        "since": _stamp(state.since) if state else None,
        "reason": state.reason if state else "",
        "refused": state.refused if state else "",
        "given": len(state.given) if state else None,
        "clustersAtRevision": seen.at_revision if seen else None,
        "clusters": seen.clusters if seen else None,
        "clusterStates": dict(seen.states) if seen else {},
        "plannedAt": _stamp(seen.at) if seen else None,
        "unreadable": "" if state else why,
    }


def _listed(summaries: Sequence[RolloutSummary]) -> tuple[list[RolloutSummary], int]:
    """The first ``MAX_ROLLOUTS`` by name, and how many more there are."""
    ordered = sorted(summaries, key=lambda s: s.appset)
    return ordered[:MAX_ROLLOUTS], max(0, len(ordered) - MAX_ROLLOUTS)


def rollouts_document(summaries: Sequence[RolloutSummary]) -> RolloutsDocument:
    listed, more = _listed(summaries)
    return {"rollouts": [rollout_row(s) for s in listed], "more": more}


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

    def render(
        self, fleet: FleetView, now: datetime | None = None, rollouts: Sequence[RolloutSummary] | None = None
    ) -> str:
        """The page; ``rollouts`` None: this generator keeps no rollouts (no Kubernetes), so no section."""
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
        listed, more = _listed(rollouts) if rollouts is not None else ([], 0)
        rollout_rows = [
            {
                **rollout_row(r),
                "inStatusSeconds": (now - _aware(r.state.since)).total_seconds() if r.state else None,
            }
            for r in listed
        ]
        return self._template.render(
            rollouts=rollout_rows if rollouts is not None else None,
            more_rollouts=more,
            rows=rows,
            counts=counts,
            blocked=sum(1 for r in rows if r["upgradeBlockers"]),
            synced=fleet.synced(),
            stale_seconds=fleet.stale_seconds(),
            refresh_seconds=self._refresh_seconds,
            cert_warn_days=CERT_WARN_DAYS,
            now=format_rfc3339(now),
        )
