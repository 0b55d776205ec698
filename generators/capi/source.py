"""The CAPI source as it runs: one list/watch per (kind, namespace) into the store, and the reconciler.

Which kinds the management cluster serves is asked first (a cluster without Cluster API, or with
another control-plane provider than kubeadm, serves fewer), and asked again every minute for the
missing ones, so installing Cluster API after the generator needs no restart. Nothing is reconciled
until the Clusters and their kubeconfig Secrets are watched: a kind we do not see must never look like
every object of it was deleted.

An object that does not parse gets a Warning Event of its own (problems.py) and is counted by kind in
``argocd_lifecycle_capi_invalid_objects``; the watches' state is part of the leader's readiness
(``watch_states``: only the leader reconciles, so only its readiness depends on them).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from argocd_lifecycle.generators.capi.announce import ClusterEvents, MirroredWriter, fleet_announcer
from argocd_lifecycle.generators.capi.names import CLUSTER_NAME_LABEL, CLUSTERS, CUSTOM_RESOURCES, Resource
from argocd_lifecycle.generators.capi.problems import ProblemEvents
from argocd_lifecycle.generators.capi.reconciler import Reconciler
from argocd_lifecycle.generators.capi.settings import CapiSettings
from argocd_lifecycle.generators.capi.store import ScopeState, Store, Table
from argocd_lifecycle.generators.fleet.engine import FleetEngine
from argocd_lifecycle.generators.fleet.events import EventRecorder
from argocd_lifecycle.generators.fleet.list_watch import Consumer, ListWatch
from argocd_lifecycle.kube.client import Kube, KubeError, KubeNotFound

log = logging.getLogger(__name__)
SECRETS = "secrets"
#: the metric's kind of the kubeconfig Secrets (the other tables are named by their CAPI kind)
KUBECONFIG_KIND = "KubeconfigSecret"


def served(kube: Kube, resource: Resource) -> bool:
    """Whether the API serves this kind (blocking)."""
    what = f"discover {resource.group}/{resource.version}"
    try:
        found = kube.call(what, kube.custom.get_api_resources, resource.group, resource.version)
    except KubeNotFound:
        return False
    return any(r.get("name") == resource.plural for r in found.get("resources") or [])


class CapiSource:
    def __init__(
        self,
        kube: Kube,
        engine: FleetEngine,
        settings: CapiSettings,
        is_leader: Callable[[], bool],
        events: ClusterEvents,
        *,
        recheck: float = 60.0,
        reconciler_options: dict[str, float] | None = None,
    ) -> None:
        self.kube, self.settings, self.recheck = kube, settings, recheck
        self.is_leader = is_leader
        self.store = Store()
        self.events = events
        self.problems = ProblemEvents(events.recorder, is_leader)
        for resource in CUSTOM_RESOURCES:
            self.store.tables[resource.plural].on_problem = functools.partial(self.problems.seen, resource)
        if engine.metrics is not None:
            gauge = engine.metrics.capi_invalid
            for plural, table in self.store.tables.items():
                kind = KUBECONFIG_KIND if plural == SECRETS else table.kind
                gauge.labels(kind).set_function(table.problems)
        self.reconciler = Reconciler(
            kube,
            self.store,
            engine.inventory,
            settings,
            is_leader=is_leader,
            events=events,
            announce=fleet_announcer(engine),
            **(reconciler_options or {}),
        )
        self.watches: list[ListWatch] = []
        self._watched: set[str] = set()

    def watch_states(self) -> list[ScopeState]:
        """The watches this replica's readiness depends on: every CAPI watch on the leader, none on a
        follower (it reconciles nothing; failing its readiness would only take answers away)."""
        return self.store.scope_states() if self.is_leader() else []

    @property
    def scopes(self) -> tuple[str, ...]:
        return self.settings.namespaces  # never every namespace: that would read every Secret

    def _consumer(self, table: Table[Any], scope: str) -> Consumer:
        poke = self.reconciler.poke
        return Consumer(
            listed=lambda items: poke(table.relist(scope, items)),
            upserted=lambda obj: poke(table.upsert(obj)),
            deleted=lambda obj: poke(table.delete(obj)),
            broken=lambda: table.mark_broken(scope),
        )

    def _start(
        self, plural: str, scope: str, list_fn: Callable[..., Any], args: tuple[Any, ...], selector: str
    ) -> None:
        loop = asyncio.get_running_loop()
        table = self.store.tables[plural]
        self.store.expect(plural, scope)
        watch = ListWatch(
            f"{plural} in namespace {scope}",
            list_fn,
            args,
            self.kube,
            self._consumer(table, scope),
            loop=loop,
            label_selector=selector,
        )
        self.watches.append(watch)
        watch.start()

    def _start_kind(self, resource: Resource) -> None:
        custom = self.kube.custom
        for scope in self.scopes:
            args: tuple[Any, ...] = (resource.group, resource.version, scope, resource.plural)
            self._start(resource.plural, scope, custom.list_namespaced_custom_object, args, "")
        self._watched.add(resource.plural)
        log.info("Cluster API: watching %s in %s", resource.plural, ", ".join(self.scopes))

    def _start_secrets(self) -> None:
        for scope in self.scopes:
            self._start(SECRETS, scope, self.kube.core.list_namespaced_secret, (scope,), CLUSTER_NAME_LABEL)

    async def _discover(self) -> None:
        """Ask about every kind not watched yet, then watch the served ones. No watch starts before all
        are asked: a Clusters watch that listed alone would let the reconciler write Secrets without the
        worker groups still being discovered (dropping the worker count, and the scaling it records)."""
        found: list[Resource] = []
        for resource in CUSTOM_RESOURCES:
            if resource.plural in self._watched:
                continue
            try:
                is_served = await asyncio.to_thread(served, self.kube, resource)
            except KubeError as exc:
                log.warning("Cluster API: %s (asking again in %.0fs)", exc.message, self.recheck)
                continue
            if is_served:
                found.append(resource)
            elif resource is CLUSTERS:
                log.warning(
                    "Cluster API: %s/%s clusters are not served here (is Cluster API installed?)",
                    resource.group,
                    resource.version,
                )
                return  # nothing else matters before the Clusters
        for resource in found:
            if resource is CLUSTERS:
                self._start_secrets()  # the kubeconfigs matter only once Clusters are watched
            self._start_kind(resource)

    async def run(self) -> None:
        """Watch, reconcile, and ask again for kinds not served yet; stops every watch when cancelled."""
        reconciling = asyncio.create_task(self.reconciler.run(), name="capi-reconciler")
        try:
            while True:
                if len(self._watched) < len(CUSTOM_RESOURCES):
                    await self._discover()
                await self.problems.flush()  # what was seen while following, once this replica leads
                done, _ = await asyncio.wait({reconciling}, timeout=self.recheck)
                if done:
                    await reconciling  # its exception: it never ends otherwise
                    return
        finally:
            for watch in self.watches:
                watch.stop()
            reconciling.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reconciling


def attach(
    kube: Kube, engine: FleetEngine, settings: CapiSettings, is_leader: Callable[[], bool], *, instance: str = ""
) -> CapiSource:
    """Wire the CAPI source into a fleet: its Events are mirrored onto CAPI Clusters from now on;
    ``run()`` (a task) watches and reconciles. The API server the generator talks to is the management
    cluster's: no kubeconfig may name it."""
    settings = replace(settings, servers=settings.servers.with_management([kube.host]))
    events = ClusterEvents(EventRecorder(kube, instance=instance), is_leader)
    engine.outputs.writer = MirroredWriter(engine.outputs.writer, events)
    return CapiSource(kube, engine, settings, is_leader, events)
