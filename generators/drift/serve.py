"""The drift watch of ``generator serve``: fed by the generator's Applications list/watch, reading the
destination clusters with the prober's client and the inventory's cluster Secrets, publishing through
the API, leader only."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence

from prometheus_client import REGISTRY, CollectorRegistry

from argocd_lifecycle.drift.attribute import ObjectRef
from argocd_lifecycle.drift.report import AppDrift
from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.drift.live import find_destination
from argocd_lifecycle.generators.drift.publish import DriftMetrics, KubeDriftOutputs
from argocd_lifecycle.generators.drift.reader import ObjectReader, Read
from argocd_lifecycle.generators.drift.watch import DriftWatch, ReadObjects
from argocd_lifecycle.generators.drift.window import Windows
from argocd_lifecycle.generators.fleet.inventory import Inventory
from argocd_lifecycle.generators.fleet.list_watch import ListWatch
from argocd_lifecycle.generators.fleet.poster import Notifier
from argocd_lifecycle.generators.fleet.prober import ClusterClient, ProberSettings
from argocd_lifecycle.generators.preflight.gate import tee
from argocd_lifecycle.kube.client import Kube


def cluster_reader(inventory: Inventory, settings: ProberSettings) -> ReadObjects:
    """Reads an Application's objects from its destination with that cluster Secret's credentials."""

    async def read(app: AppDrift, refs: Sequence[ObjectRef]) -> Mapping[ObjectRef, Read]:
        cluster = find_destination(app, list(inventory.secrets.values()))
        if isinstance(cluster, str):
            return dict.fromkeys(refs, f"cluster not readable: {cluster}")
        if cluster.credentials.unsupported:
            return dict.fromkeys(refs, f"cluster not readable: {cluster.credentials.unsupported}")
        try:
            client = ClusterClient(cluster, settings)
        except UsageError as exc:
            return dict.fromkeys(refs, f"cluster not readable: {exc.message}")
        try:
            return await ObjectReader(client).read_all(refs)
        finally:
            await client.aclose()

    return read


def attach(
    kube: Kube,
    inventory: Inventory,
    applications: ListWatch,
    is_leader: Callable[[], bool],
    probing: ProberSettings,
    *,
    notifier: Notifier | None = None,
    windows: Windows | None = None,
    instance: str = "",
    registry: CollectorRegistry = REGISTRY,
) -> tuple[DriftWatch, asyncio.Task[None]]:
    """Call before ``applications.start()``."""
    outputs = KubeDriftOutputs(
        kube, notifier=notifier, metrics=DriftMetrics(registry), instance=instance, is_leader=is_leader
    )
    watch = DriftWatch(cluster_reader(inventory, probing), outputs, windows, is_leader=is_leader)
    applications.consumer = tee(applications.consumer, watch.consumer())
    return watch, asyncio.create_task(watch.run(), name="drift-watch")
