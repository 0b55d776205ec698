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

from prometheus_client import REGISTRY, CollectorRegistry

from argocd_lifecycle.generators.capi import source as capi_source
from argocd_lifecycle.generators.drift import serve as drift_watch
from argocd_lifecycle.generators.fleet.applications import PLURAL as APPLICATIONS
from argocd_lifecycle.generators.fleet.applications import ApplicationIndex, reader
from argocd_lifecycle.generators.fleet.appsets import PLURAL as APPSETS
from argocd_lifecycle.generators.fleet.appsets import AppSetIndex
from argocd_lifecycle.generators.fleet.argocd_params import (
    APPLICATION_NAMESPACES,
    APPSET_NAMESPACES,
    ARGOCD_CMD_PARAMS_CM,
    ArgoNamespaces,
    read_argo_namespaces,
    shown,
)
from argocd_lifecycle.generators.fleet.baseline import KubeBaseline
from argocd_lifecycle.generators.fleet.departures import Departures
from argocd_lifecycle.generators.fleet.directory import Directory
from argocd_lifecycle.generators.fleet.engine import FleetEngine, Outputs
from argocd_lifecycle.generators.fleet.file_source import FileSource
from argocd_lifecycle.generators.fleet.held import HeldReporter
from argocd_lifecycle.generators.fleet.in_cluster import InClusterError, in_cluster_enabled
from argocd_lifecycle.generators.fleet.inventory import Inventory
from argocd_lifecycle.generators.fleet.kube_source import KubeSource
from argocd_lifecycle.generators.fleet.leader import LeaderElector, LeaseSettings
from argocd_lifecycle.generators.fleet.list_watch import ListWatch
from argocd_lifecycle.generators.fleet.metrics import FleetMetrics
from argocd_lifecycle.generators.fleet.namespaces import GRANT, Namespaces, ScopedWatch
from argocd_lifecycle.generators.fleet.poster import Notifier
from argocd_lifecycle.generators.fleet.refresher import AppSetRefresher
from argocd_lifecycle.generators.fleet.state_file import StateFile, StateWriter, default_path
from argocd_lifecycle.generators.fleet.view import Baseline, RememberedAnswers
from argocd_lifecycle.generators.fleet.writer import KubeWriter, Writer
from argocd_lifecycle.generators.preflight import gate as upgrade_gate
from argocd_lifecycle.generators.rollout.keeper import AppSetCache, KubeSink, RolloutKeeper, appset_watch
from argocd_lifecycle.generators.service.app import build_app
from argocd_lifecycle.generators.service.readiness import Watches
from argocd_lifecycle.generators.service.settings import ServiceSettings
from argocd_lifecycle.generators.settings import ServeSettings
from argocd_lifecycle.http import server
from argocd_lifecycle.kube.client import Kube, KubeSettings, connect

log = logging.getLogger(__name__)


@dataclass
class Fleet:
    engine: FleetEngine
    #: what the mass-drop guard compares answers with: the Applications, or the state file's answers
    baseline: Baseline
    reporter: HeldReporter
    kube: Kube | None = None
    leader: LeaderElector | None = None
    source: KubeSource | None = None
    #: the Applications and ApplicationSets list/watches, one per watched scope (a namespace, or "*")
    applications: dict[str, ScopedWatch] = field(default_factory=dict)
    appsets: dict[str, ScopedWatch] = field(default_factory=dict)
    state: StateFile | None = None
    notifier: Notifier | None = None
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    #: the watches readiness depends on beside the Secrets and Applications (the CAPI source's)
    watches: Watches | None = None
    #: rollouts (Kubernetes only: they read the Applications and keep their state on the ApplicationSets)
    rollouts: RolloutKeeper | None = None
    #: the rollouts' watch of the Argo CD namespace's ApplicationSets (their annotations)
    rollout_appsets: ListWatch | None = None
    #: Argo CD's namespace patterns (argocd-cmd-params-cm) that the watches do not cover
    unwatched: ArgoNamespaces = field(default_factory=ArgoNamespaces)

    def start_watches(self) -> None:
        """The Applications and ApplicationSets watches, once everything that consumes them is attached."""
        for source in (*self.applications.values(), *self.appsets.values()):
            source.start()

    async def aclose(self) -> None:
        for source in (self.source, *self.applications.values(), *self.appsets.values(), self.rollout_appsets):
            if source is not None:
                source.stop()
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self.leader is not None:
            await asyncio.to_thread(self.leader.stop)
        await self.engine.aclose()
        if self.state is not None:
            self.state.flush()
        if self.notifier is not None:
            await self.notifier.aclose()


def _outputs(
    settings: ServeSettings,
    kube: Kube | None,
    state: StateFile | None,
    is_leader: Callable[[], bool],
    notifier: Notifier | None,
) -> Outputs:
    """Where the engine's results go: the cluster Secrets and the ApplicationSets, else the state file."""
    if kube is None:
        assert state is not None  # set with clusters_from
        return Outputs(StateWriter(state), notifier)
    writer: Writer = KubeWriter(kube, is_leader, instance=settings.identity)
    refresher = AppSetRefresher(kube, settings.namespaces, is_leader, configmap=settings.plugin_configmap)
    return Outputs(writer, notifier, refresher)


async def _connect(settings: ServeSettings, inventory: Inventory) -> Kube:
    """The management cluster, and whether the inventory holds Argo CD's implicit in-cluster entry
    (``--in-cluster``, unless argocd-cm turns it off; checked at start-up)."""
    kube = await asyncio.to_thread(connect, KubeSettings(settings.kubeconfig, settings.context))
    if settings.in_cluster and await asyncio.to_thread(in_cluster_enabled, kube, settings.namespace):
        inventory.in_cluster = True
        try:
            settings.probing.in_cluster.check()
        except InClusterError as exc:  # not fatal: the entry is listed, Pending, its probe saying why
            log.warning("%s: the in-cluster entry cannot be probed", exc.message)
    return kube


async def _unwatched(kube: Kube, watched: Namespaces) -> ArgoNamespaces:
    """Argo CD's namespaces (argocd-cmd-params-cm, read once; not at all when every namespace is watched)
    that the watches do not cover, each kind told once on stderr."""
    if watched.everywhere:
        return ArgoNamespaces()
    argo = await asyncio.to_thread(read_argo_namespaces, kube, watched.home)
    unwatched = argo.unwatched(watched)
    if unwatched.appsets:
        log.warning(
            "%s in %s names namespaces this generator does not watch (%s): an ApplicationSet is placed only "
            "by its input parameter applicationSetNamespace, else answered 503 not_placed; or add them (or "
            "'*') to %s",
            APPSET_NAMESPACES, ARGOCD_CMD_PARAMS_CM, shown(unwatched.appsets), GRANT,
        )  # fmt: skip
    if unwatched.applications:
        log.warning(
            "%s in %s names namespaces this generator does not watch (%s): the upgrade gate cannot see their "
            "Applications and publishes no cluster clear; add them (or '*') to %s",
            APPLICATION_NAMESPACES, ARGOCD_CMD_PARAMS_CM, shown(unwatched.applications), GRANT,
        )  # fmt: skip
    return unwatched


async def start_fleet(settings: ServeSettings, metrics: FleetMetrics | None = None) -> Fleet:
    loop = asyncio.get_running_loop()
    inventory = Inventory(settings.namespace)
    kube: Kube | None = None
    state: StateFile | None = None
    if settings.clusters_from is None:
        kube = await _connect(settings, inventory)
    else:
        state = StateFile(settings.state_file or default_path(settings.clusters_from))
    leader: LeaderElector | None = None
    if kube is not None and settings.leader_election:
        lease = LeaseSettings(namespace=settings.namespace, identity=settings.identity)
        leader = LeaderElector(kube, lease, loop)
    # without an election this replica leads from the start (the engine is told so below)
    is_leader: Callable[[], bool] = leader.is_leader if leader is not None else lambda: True
    notifier = None
    if settings.receiver_url:
        notifier = Notifier(
            settings.receiver_url, settings.receiver_secret, external_secret=settings.receiver_external_secret
        )
    directory = Directory(Departures(state))
    watched = settings.namespaces
    kube_baseline: KubeBaseline | None = None
    unwatched = ArgoNamespaces()
    if kube is not None:
        unwatched = await _unwatched(kube, watched)
        applications = ApplicationIndex(directory.identify, home=watched.home, scopes=watched.scopes)
        applications.read = reader(kube)
        kube_baseline = KubeBaseline(applications, AppSetIndex(watched, unwatched=unwatched.appsets))
    outputs = _outputs(settings, kube, state, is_leader, notifier)
    baseline = _baseline(kube_baseline, state)
    engine = FleetEngine(
        inventory, settings.lifecycle, settings.probing, outputs, metrics,
        memory=state, directory=directory, deployed=baseline.deploys_to,
    )  # fmt: skip
    if leader is None:
        engine.set_leader(True)
    reporter = HeldReporter(
        loop,
        settings.namespace,
        kube=kube,
        uid_of=kube_baseline.uid if kube_baseline is not None else lambda appset: "",
        notifier=notifier,
        refresher=outputs.refresher,
        instance=settings.identity,
    )
    fleet = Fleet(engine, baseline, reporter, kube, leader, state=state, notifier=notifier, unwatched=unwatched)
    if outputs.refresher is not None:
        fleet.tasks.append(asyncio.create_task(outputs.refresher.run(), name="appset-refresher"))
    if notifier is not None:
        fleet.tasks.append(asyncio.create_task(notifier.run(), name="receiver-poster"))
    if kube is not None:
        assert kube_baseline is not None
        registry = REGISTRY if metrics is None or metrics.registry is None else metrics.registry
        _watch_management(
            fleet, kube, kube_baseline, inventory, is_leader=is_leader, settings=settings, registry=registry, loop=loop
        )
        _with_rollouts(fleet, kube, kube_baseline, loop=loop, leader=is_leader, settings=settings, registry=registry)
    else:
        assert settings.clusters_from is not None
        files = FileSource(settings.clusters_from, inventory)
        fleet.tasks.append(asyncio.create_task(files.run(), name="cluster-files"))
    if kube is not None and settings.capi is not None:
        fleet.tasks.append(_capi(fleet, kube, engine, settings, is_leader))
    if leader is not None:
        leader.start(engine.set_leader)
    return fleet


def _baseline(kube: KubeBaseline | None, state: StateFile | None) -> KubeBaseline | RememberedAnswers:
    """What the guard compares with (the ApplicationSets and Applications, else the state file's answers);
    the engine reads it too, so that a re-created Secret of a cluster Argo CD deploys to stays admitted."""
    if kube is not None:
        return kube
    assert state is not None
    return state.answers


def _watch_management(
    fleet: Fleet,
    kube: Kube,
    baseline: KubeBaseline,
    inventory: Inventory,
    *,
    is_leader: Callable[[], bool],
    settings: ServeSettings,
    registry: CollectorRegistry,
    loop: asyncio.AbstractEventLoop,
) -> None:
    """The management cluster's watches (Applications and ApplicationSets of every watched scope, the
    cluster Secrets) and what consumes them besides the guard (the upgrade gate, the drift watch)."""
    _watch_tenants(fleet, kube, baseline, settings, loop)
    # an ApplicationSet refused before its watch event came is asked again when it comes
    baseline.appsets.on_appeared = lambda key: fleet.reporter.recheck(key, 0.0)
    _with_upgrade_gate(fleet, kube, inventory, is_leader, settings, registry=registry)
    _with_drift_watch(fleet, kube, inventory, is_leader, settings, registry=registry)
    fleet.start_watches()
    fleet.source = KubeSource(kube, settings.namespace, inventory, loop)
    fleet.source.start()


def _watch_tenants(
    fleet: Fleet, kube: Kube, baseline: KubeBaseline, settings: ServeSettings, loop: asyncio.AbstractEventLoop
) -> None:
    """One Applications and one ApplicationSets list/watch per watched scope (not started yet)."""
    for scope in settings.namespaces.scopes:
        fleet.applications[scope] = ScopedWatch(kube, APPLICATIONS, scope, baseline.applications.consumer(scope), loop)
        fleet.appsets[scope] = ScopedWatch(kube, APPSETS, scope, baseline.appsets.consumer(scope), loop)
    log.info("ApplicationSets and Applications watched in %s", settings.namespaces.describe())


def _with_upgrade_gate(
    fleet: Fleet,
    kube: Kube,
    inventory: Inventory,
    leader: Callable[[], bool],
    settings: ServeSettings,
    *,
    registry: CollectorRegistry,
) -> None:
    """The upgrade gate (README "Upgrading a cluster"): the preflight for every cluster Secret naming an
    ``upgrade-to`` release, fed by the same Applications list/watches as the mass-drop guard (to be
    started once both consume them)."""
    _, task = upgrade_gate.attach(
        kube, inventory, fleet.applications, leader, instance=settings.identity, registry=registry,
        unseen=fleet.unwatched.applications,
    )  # fmt: skip
    fleet.tasks.append(task)


def _with_drift_watch(
    fleet: Fleet,
    kube: Kube,
    inventory: Inventory,
    leader: Callable[[], bool],
    settings: ServeSettings,
    *,
    registry: CollectorRegistry,
) -> None:
    """The drift watch (docs/guide/drift.md), on the same Applications list/watch, unless ``--no-drift``."""
    if settings.drift is None:
        return
    home = fleet.applications.get(settings.namespace)
    if home is None:  # --application-namespace '*': one cluster-wide watch, tenants' Applications in it
        log.warning("the drift watch covers Applications of the Argo CD namespace only: off with '*'")
        return
    _, task = drift_watch.attach(
        kube, inventory, home, leader, settings.probing,
        notifier=fleet.notifier, windows=settings.drift, instance=settings.identity, registry=registry,
    )  # fmt: skip
    fleet.tasks.append(task)


def _with_rollouts(
    fleet: Fleet,
    kube: Kube,
    baseline: KubeBaseline,
    *,
    loop: asyncio.AbstractEventLoop,
    leader: Callable[[], bool],
    settings: ServeSettings,
    registry: CollectorRegistry,
) -> None:
    """Rollouts (README "Rollouts"): the Argo CD namespace's ApplicationSets' annotations watched, the
    Applications' revisions and health from the guard's index, the leader's writes through the sink."""
    cache = AppSetCache()
    sink = KubeSink(
        loop, kube, settings.namespace, notifier=fleet.notifier, refresher=fleet.reporter.refresher,
        instance=settings.identity,
    )  # fmt: skip
    fleet.rollouts = RolloutKeeper(cache, baseline.applications.statuses, leader, sink, registry=registry)
    fleet.rollout_appsets = appset_watch(kube, settings.namespace, cache, loop)
    fleet.rollout_appsets.start()


def _capi(
    fleet: Fleet, kube: Kube, engine: FleetEngine, settings: ServeSettings, leader: Callable[[], bool]
) -> asyncio.Task[None]:
    """The Cluster API source (``--capi``), started only when it is on; its watches count for readiness."""
    assert settings.capi is not None
    capi = capi_source.attach(kube, engine, settings.capi, leader, instance=settings.identity)
    fleet.watches = capi.watch_states
    return asyncio.create_task(capi.run(), name="capi-source")


async def run(settings: ServeSettings, service: ServiceSettings) -> None:
    fleet = await start_fleet(settings, FleetMetrics(REGISTRY))
    app: Any = build_app(
        fleet.engine, service, baseline=fleet.baseline, reporter=fleet.reporter, registry=REGISTRY,
        watches=fleet.watches, rollouts=fleet.rollouts,
    )  # fmt: skip
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
