"""The contract between the fleet engine (who knows the fleet) and the HTTP service (who serves it).

The engine (``FleetEngine`` in engine.py) implements ``FleetView``; the service (generators/service)
only reads it. The dependency runs one way: generators/service imports this module and nothing else
of generators/fleet, and generators/fleet never imports generators/service (a test checks both). Both
sides and their tests build against these types, so either can change inside without touching the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from argocd_lifecycle.model import Phase


@dataclass(frozen=True)
class ClusterState:
    """One cluster as the fleet knows it now (domain value; wire shapes live in the service)."""

    name: str
    server: str
    secret_name: str
    project: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    phase: Phase = Phase.PENDING
    #: when the current phase was entered (changes only on a transition)
    phase_since: datetime | None = None
    #: true once the cluster passed the readiness gate; stays true through Degraded/Unreachable
    ready: bool = False
    message: str = ""
    #: ``v1.29.3`` as the cluster's /version reports it, or "" before the first good probe
    git_version: str = ""
    #: ``1.33`` while Upgrading (from the upgrade-to annotation or the control plane), else ""
    upgrade_to: str = ""
    nodes: int = 0
    nodes_ready: int = 0
    certificate_expires_at: datetime | None = None


class FleetView(Protocol):
    """Read-only view of the fleet that the HTTP service serves from."""

    def clusters(self) -> list[ClusterState]:
        """Every known cluster, sorted by name."""
        ...

    def synced(self) -> bool:
        """True once the inventory has listed the cluster Secrets at least once."""
        ...

    def stale_seconds(self) -> float:
        """How long the Secret watch has been broken (0.0 while it is healthy)."""
        ...

    def departed(self) -> frozenset[str]:
        """Names of clusters whose Secret was deleted: an explicit departure, so leaving an answer
        does not count against the mass-drop guard. Recent ones only (bounded memory)."""
        ...
