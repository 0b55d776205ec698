"""Wiring of ``generator serve``: start the inventory source, leader election, engine and outputs.

``start_fleet`` builds and starts everything except the HTTP server (tests and benchmarks use it
directly); ``run`` adds uvicorn on the same loop and tears it all down when the server stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from argocd_lifecycle.generators.fleet.engine import FleetEngine, Outputs
from argocd_lifecycle.generators.fleet.file_source import FileSource
from argocd_lifecycle.generators.fleet.inventory import Inventory
from argocd_lifecycle.generators.fleet.kube_source import KubeSource
from argocd_lifecycle.generators.fleet.leader import LeaderElector, LeaseSettings
from argocd_lifecycle.generators.fleet.metrics import FleetMetrics
from argocd_lifecycle.generators.fleet.poster import Notifier
from argocd_lifecycle.generators.fleet.refresher import AppSetRefresher
from argocd_lifecycle.generators.fleet.writer import KubeWriter, LogWriter
from argocd_lifecycle.generators.service.settings import ServiceSettings
from argocd_lifecycle.generators.settings import ServeSettings
from argocd_lifecycle.kube import Kube, KubeSettings, connect

log = logging.getLogger(__name__)


@dataclass
class Fleet:
    engine: FleetEngine
    kube: Kube | None = None
    leader: LeaderElector | None = None
    source: KubeSource | None = None
    notifier: Notifier | None = None
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def aclose(self) -> None:
        if self.source is not None:
            self.source.stop()
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.leader is not None:
            await asyncio.to_thread(self.leader.stop)
        await self.engine.aclose()
        if self.notifier is not None:
            await self.notifier.aclose()


async def start_fleet(settings: ServeSettings, metrics: FleetMetrics | None = None) -> Fleet:
    loop = asyncio.get_running_loop()
    inventory = Inventory(settings.namespace)
    kube: Kube | None = None
    if settings.clusters_from is None:
        kube = await asyncio.to_thread(connect, KubeSettings(settings.kubeconfig, settings.context))
    outputs = Outputs()
    engine = FleetEngine(inventory, settings.lifecycle, settings.probing, outputs, metrics)
    fleet = Fleet(engine, kube)
    is_leader: Callable[[], bool] = lambda: engine.leading  # noqa: E731 - replaced below with the Lease
    if kube is not None and settings.leader_election:
        lease = LeaseSettings(namespace=settings.namespace, identity=settings.identity)
        fleet.leader = LeaderElector(kube, lease, loop, engine.set_leader)
        is_leader = fleet.leader.is_leader
    else:
        engine.set_leader(True)
    if kube is not None:
        outputs.writer = KubeWriter(kube, is_leader, instance=settings.identity)
        refresher = AppSetRefresher(kube, settings.namespace, is_leader, configmap=settings.plugin_configmap)
        outputs.refresher = refresher
        fleet.tasks.append(asyncio.create_task(refresher.run(), name="appset-refresher"))
    else:
        outputs.writer = LogWriter()
    if settings.receiver_url:
        fleet.notifier = outputs.notifier = Notifier(settings.receiver_url, settings.receiver_secret)
        fleet.tasks.append(asyncio.create_task(fleet.notifier.run(), name="lifecycle-notifier"))
    if kube is not None:
        fleet.source = KubeSource(kube, settings.namespace, inventory, loop)
        fleet.source.start()
    else:
        assert settings.clusters_from is not None
        files = FileSource(settings.clusters_from, inventory)
        fleet.tasks.append(asyncio.create_task(files.run(), name="cluster-files"))
    if kube is not None and settings.capi is not None:
        fleet.tasks.append(_capi(kube, engine, settings, is_leader))
    if fleet.leader is not None:
        fleet.leader.start()
    return fleet


def _capi(kube: Kube, engine: FleetEngine, settings: ServeSettings, leader: Callable[[], bool]) -> asyncio.Task[None]:
    """The Cluster API source (``--capi``), imported only when it is on."""
    from argocd_lifecycle.generators.capi.source import attach

    assert settings.capi is not None
    capi = attach(kube, engine, settings.capi, leader, instance=settings.identity)
    return asyncio.create_task(capi.run(), name="capi-source")


async def run(settings: ServeSettings, service: ServiceSettings) -> None:
    from prometheus_client import REGISTRY

    from argocd_lifecycle.generators.service.app import build_app
    from argocd_lifecycle.http import server

    fleet = await start_fleet(settings, FleetMetrics())
    app: Any = build_app(fleet.engine, service, registry=REGISTRY)  # beside the fleet's own metrics
    log.info(
        "serving on %s:%d; clusters from %s",
        settings.host,
        settings.port,
        settings.clusters_from or f"Secrets in namespace {settings.namespace}",
    )
    try:
        addresses = ((settings.host, settings.port), *settings.more_listen)
        await server.serve(app, server.ServerSettings(addresses, settings.limits, settings.log_level))
    finally:
        await fleet.aclose()
