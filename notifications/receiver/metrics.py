"""Prometheus metrics, in a registry of their own so several apps can live in one process (tests)."""

from __future__ import annotations

from functools import cache

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.received = Counter(
            "argocd_lifecycle_receiver_events_received", "Events accepted for processing", ["source"], registry=r
        )
        self.rejected = Counter(
            "argocd_lifecycle_receiver_events_rejected", "Requests rejected, by reason", ["reason"], registry=r
        )
        self.deduplicated = Counter(
            "argocd_lifecycle_receiver_events_deduplicated", "Duplicates dropped inside the window", registry=r
        )
        self.silenced = Counter("argocd_lifecycle_receiver_events_silenced", "Events silenced", registry=r)
        self.collapsed = Counter(
            "argocd_lifecycle_receiver_events_collapsed",
            "App alerts folded into a cluster storm message",
            registry=r,
        )
        self.flapping = Counter("argocd_lifecycle_receiver_events_flapping", "Events held back as flapping", registry=r)
        self.delivered = Counter("argocd_lifecycle_receiver_deliveries", "Messages delivered", ["receiver"], registry=r)
        self.failed = Counter(
            "argocd_lifecycle_receiver_delivery_failures",
            "Failed delivery attempts",
            ["receiver", "retryable"],
            registry=r,
        )
        self.dead_lettered = Counter(
            "argocd_lifecycle_receiver_dead_lettered",
            "Messages moved to the dead-letter list",
            ["receiver"],
            registry=r,
        )
        self.outbox_depth = Gauge(
            "argocd_lifecycle_receiver_outbox_depth", "Outbox items by state", ["state"], registry=r
        )
        self.latency = Histogram(
            "argocd_lifecycle_receiver_delivery_latency_seconds",
            "From acceptance to delivery",
            ["receiver"],
            buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600),
            registry=r,
        )

    @cache  # noqa: B019 - one Metrics per app; resolving a label child costs more than the increment
    def received_from(self, source: str) -> Counter:
        child: Counter = self.received.labels(source)
        return child
