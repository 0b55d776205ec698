"""Prometheus metrics of the inventory, prober and lifecycle (prometheus_client, one registry)."""

from __future__ import annotations

import contextlib

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

from argocd_lifecycle.generators.fleet.probe_result import ProbeResult
from argocd_lifecycle.model import Phase


def error_kind(result: ProbeResult) -> str:
    """A small, fixed set of label values for probe failures."""
    if result.unsupported:
        return "unsupported"
    if result.reachable:
        return "unhealthy"
    if result.reason:
        return result.reason
    text = result.error
    if "timeout" in text.lower():
        return "timeout"
    if "TLS:" in text:
        return "tls"
    if "HTTP 401" in text or "HTTP 403" in text:
        return "auth"
    if "connect:" in text or "ConnectError" in text:
        return "connect"
    return "error"


class FleetMetrics:
    @classmethod
    def null(cls) -> FleetMetrics:
        """Metrics registered nowhere: an engine without a registry counts into these, and nobody reads
        them (so the engine never asks whether it has metrics)."""
        return cls(None)

    def __init__(self, registry: CollectorRegistry | None = REGISTRY) -> None:
        #: where these live; the other metrics of the same fleet go there too
        self.registry = registry
        self.phase = Gauge(
            "argocd_lifecycle_cluster_phase",
            "1 for the current phase of each cluster",
            ["cluster", "phase"],
            registry=registry,
        )
        self.probe_duration = Histogram(
            "argocd_lifecycle_probe_duration_seconds",
            "Duration of one cluster probe (/version, /readyz, node list)",
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=registry,
        )
        self.transitions = Counter(
            "argocd_lifecycle_transitions_total",
            "Lifecycle events by cluster and reason",
            ["cluster", "reason"],
            registry=registry,
        )
        self.probe_errors = Counter(
            "argocd_lifecycle_probe_errors_total",
            "Failed or unhealthy probes",
            ["cluster", "reason"],
            registry=registry,
        )
        self.synced = Gauge(
            "argocd_lifecycle_inventory_synced",
            "1 when the cluster Secrets are listed and the watch is whole",
            registry=registry,
        )
        self.clusters = Gauge("argocd_lifecycle_clusters", "Cluster Secrets known to the inventory", registry=registry)
        self.invalid = Gauge(
            "argocd_lifecycle_cluster_secret_invalid",
            "1 for each cluster Secret that does not parse",
            ["secret"],
            registry=registry,
        )
        self.capi_invalid = Gauge(
            "argocd_lifecycle_capi_invalid_objects",
            "Cluster API objects (and kubeconfig Secrets) that do not parse, by kind; each has a Warning Event",
            ["kind"],
            registry=registry,
        )
        self.leader = Gauge("argocd_lifecycle_leader", "1 while this replica holds the Lease", registry=registry)

    def set_phase(self, cluster: str, phase: Phase) -> None:
        for each in Phase:
            self.phase.labels(cluster, each.value).set(1 if each is phase else 0)

    def forget(self, cluster: str) -> None:
        for each in Phase:
            with contextlib.suppress(KeyError):
                self.phase.remove(cluster, each.value)

    def probed(self, cluster: str, result: ProbeResult, seconds: float) -> None:
        self.probe_duration.observe(seconds)
        if result.unsupported or not result.reachable or result.error:
            self.probe_errors.labels(cluster, error_kind(result)).inc()
