"""In-memory FleetView and Baseline (real implementations of the protocols) and a small sample fleet."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime

from argocd_lifecycle.generators.fleet.view import ClusterState, Hold, Placement, Target, qualified
from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, CLUSTER_SECRET_LABEL_VALUE, Phase

SINCE = datetime(2025, 3, 1, 8, 30, 0, tzinfo=UTC)
CERT = datetime(2026, 1, 15, 0, 0, 0, tzinfo=UTC)
SECRET_LABEL = {CLUSTER_SECRET_LABEL: CLUSTER_SECRET_LABEL_VALUE}


class MemoryFleet:
    """FleetView over a dict; tests change the fleet with put/remove like an inventory would."""

    def __init__(self, clusters: list[ClusterState] | None = None, *, synced: bool = True, stale: float = 0.0):
        self._clusters = {c.name: c for c in clusters or []}
        self._synced = synced
        self.stale = stale
        self._departed: set[str] = set()

    def clusters(self) -> list[ClusterState]:
        return [self._clusters[name] for name in sorted(self._clusters)]

    def synced(self) -> bool:
        return self._synced

    def stale_seconds(self) -> float:
        return self.stale

    def departed(self) -> frozenset[str]:
        return frozenset(self._departed)

    def set_synced(self, value: bool) -> None:
        self._synced = value

    def put(self, cluster: ClusterState) -> None:
        self._clusters[cluster.name] = cluster

    def update(self, name: str, **changes: object) -> ClusterState:
        cluster = replace(self._clusters[name], **changes)  # type: ignore[arg-type]
        self._clusters[name] = cluster
        return cluster

    def remove(self, name: str) -> None:
        """The cluster's Secret vanishes: an explicit departure only when it was Decommissioning."""
        gone = self._clusters.pop(name)
        if gone.phase is Phase.DECOMMISSIONING:
            self._departed.add(gone.server)


class AppsBaseline:
    """A Baseline like the Applications cache: the clusters each ApplicationSet's Applications target,
    set by the test as Argo CD would create and delete Applications."""

    def __init__(self) -> None:
        self.apps: dict[str, set[Target]] = {}
        self.listed = True
        self.stale = 0.0
        self.unseen: frozenset[Target] = frozenset()
        self.unreadable: Exception | None = None
        #: the template's project every placement carries
        self.project = ""

    def synced(self) -> bool:
        return self.listed

    def stale_seconds(self) -> float:
        return self.stale

    def place(self, name: str, namespace: str) -> Placement:
        """Every ApplicationSet lives in the Argo CD namespace here (appsets.py is tested on its own)."""
        namespace = namespace or "argocd"
        return Placement(qualified(namespace, name, "argocd"), namespace, name, self.project)

    def targets(self, appset: str) -> frozenset[Target]:
        return frozenset(self.apps.get(appset, set()))

    def confirm(self, appset: str) -> frozenset[Target]:
        """A fresh read: what the cache says, plus what Argo CD created that it has not seen yet."""
        if self.unreadable is not None:
            raise self.unreadable
        return self.targets(appset) | self.unseen

    def answered(self, appset: str, clusters: Iterable[ClusterState]) -> None:
        pass  # Argo CD's Applications are the memory

    def argo_cd_applies(self, appset: str, answer: list[str], fleet: MemoryFleet, *, departing: bool = False) -> None:
        """What the ApplicationSet controller does with a 200: one Application per answered cluster."""
        servers = {c.name: c.server for c in fleet.clusters()}
        self.apps[appset] = {Target(servers[name], name, departing) for name in answer}


class Reported:
    """A HoldReporter that records what it was told."""

    def __init__(self) -> None:
        self.holds: list[Hold] = []
        self.releases: list[str] = []
        self.rechecks: list[tuple[str, float]] = []

    def held(self, hold: Hold) -> None:
        self.holds.append(hold)

    def released(self, appset: str) -> None:
        self.releases.append(appset)

    def recheck(self, appset: str, after: float) -> None:
        self.rechecks.append((appset, after))


def cluster(
    name: str,
    phase: Phase = Phase.READY,
    *,
    env: str | None = "prod",
    version: str = "v1.30.2",
    ready: bool = True,
    **extra: object,
) -> ClusterState:
    labels = dict(SECRET_LABEL)
    if env:
        labels["env"] = env
    fields: dict[str, object] = {
        "name": name,
        "server": f"https://{name.lower().replace(' ', '-')}.example.test:6443",
        "secret_name": f"cluster-{name.lower()}",
        "labels": labels,
        "annotations": {"team": "platform"},
        "phase": phase,
        "phase_since": SINCE,
        "ready": ready,
        "git_version": version,
        "nodes_known": True,
        "nodes": 3,
        "nodes_ready": 3,
        "certificate_expires_at": CERT,
    }
    fields.update(extra)
    return ClusterState(**fields)  # type: ignore[arg-type]


def sample_fleet() -> list[ClusterState]:
    """Every phase once, plus a never-ready cluster and one with labels of its own."""
    return [
        cluster("prod-eu-1", Phase.READY, version="v1.30.2", labels={**SECRET_LABEL, "env": "prod", "region": "eu"}),
        cluster(
            "prod-us-1", Phase.DEGRADED, version="v1.29.7", message="2 of 5 nodes NotReady", nodes=5, nodes_ready=3
        ),
        cluster("staging-1", Phase.UPGRADING, env="staging", version="v1.30.4", upgrade_to="1.31"),
        cluster("edge-7", Phase.UNREACHABLE, version="v1.28.9", message="dial tcp: i/o timeout"),
        cluster("new-1", Phase.PENDING, ready=False, version="v1.31.0", message="1 of 3 good probes"),
        cluster("old-1", Phase.DECOMMISSIONING, version="v1.27.3"),
    ]
