"""The upgrade gate: the preflight, run by the generator for every cluster whose Secret names a target.

An operator sets ``argocd-lifecycle.io/upgrade-to: "1.33"`` on a cluster Secret; from then on, whenever
an Application deploying to that cluster changes in a way the preflight can see (its destination, its
sources, its ``status.resources``), the cluster is evaluated again and the result published
(publish.py: annotations, an Event, this module's gauge). Changes are coalesced: a burst of
Application updates costs one evaluation per cluster. Argo CD rewrites every Application's status on
each reconcile; a change that leaves the preflight's view of it equal is ignored at once.

Input: the Applications list/watches of the generator's watched namespaces (``consumer(scope)`` is
one list/watch's ``Consumer``; a tenant's Application deploying to the cluster counts like any other)
and the inventory's cluster Secrets. Only the leader publishes; a resync every ``resync`` seconds
catches a leadership change and retries what failed. Until the Applications of every watched
namespace were listed once, nothing is decided: an empty cache must not say "clear". Nor may a gate
that cannot see every Application Argo CD acts on: where ``application.namespaces`` in
argocd-cmd-params-cm has namespaces the generator does not watch (``unseen``), every report carries one
more blocker naming them (``unseen_blocker``), so no cluster is published clear.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.deprecations.rules import Key, KnowledgeBase
from argocd_lifecycle.errors import LifecycleError, UsageError
from argocd_lifecycle.generators.fleet.argocd_params import APPLICATION_NAMESPACES, ARGOCD_CMD_PARAMS_CM, shown
from argocd_lifecycle.generators.fleet.inventory import Change, ChangeKind, Inventory
from argocd_lifecycle.generators.fleet.list_watch import Consumer, ListWatch
from argocd_lifecycle.generators.fleet.namespaces import EVERY, ScopeHealth, in_scope
from argocd_lifecycle.generators.preflight.apps import AppRecord, Resource, read_application
from argocd_lifecycle.generators.preflight.clusters import ClusterRef, deploys_to
from argocd_lifecycle.generators.preflight.evaluate import evaluate
from argocd_lifecycle.generators.preflight.metrics import GateMetrics
from argocd_lifecycle.generators.preflight.publish import KubePublisher, Publisher, decide
from argocd_lifecycle.generators.preflight.report import Finding, Report, Status
from argocd_lifecycle.kube.client import Kube
from argocd_lifecycle.model import Annotation
from argocd_lifecycle.versions import KubeVersion

log = logging.getLogger(__name__)


def upgrade_target(annotations: Mapping[str, str]) -> Key | None:
    text = annotations.get(Annotation.UPGRADE_TO, "").strip()
    if not text:
        return None
    try:
        return KubeVersion.parse(text, where=Annotation.UPGRADE_TO).key
    except UsageError:
        return None  # the lifecycle reports a bad target on the Secret; the gate does not guess


def tee(*consumers: Consumer) -> Consumer:
    """One list/watch feeding several consumers, in order (the guard's index, then the gate)."""

    def listed(items: list[dict[str, Any]]) -> None:
        for c in consumers:
            c.listed(items)

    def upserted(obj: dict[str, Any]) -> None:
        for c in consumers:
            c.upserted(obj)

    def deleted(obj: dict[str, Any]) -> None:
        for c in consumers:
            c.deleted(obj)

    def broken() -> None:
        for c in consumers:
            c.broken()

    return Consumer(listed, upserted, deleted, broken)


def unseen_blocker(report: Report, unseen: tuple[str, ...]) -> Report:
    """``report`` with one more blocker: the Applications of ``unseen`` (patterns of Argo CD's
    ``application.namespaces`` the generator does not watch) may deploy to the cluster unseen, so it
    cannot be clear until they are watched."""
    blind = Finding(
        application=f"{ARGOCD_CMD_PARAMS_CM} {APPLICATION_NAMESPACES}",
        project="",
        plugin="",
        resource=Resource("argoproj.io/v1alpha1", "Applications", "", f"in {shown(unseen)}, not watched"),
        status=Status.BLOCKER,
        deprecated_in="",
        removed_in="",
        replacement="",
        note="the upgrade gate cannot see these Applications: add their namespaces (or '*') to "
        "generator.applicationNamespaces",
    )
    return replace(report, findings=(blind, *report.findings))


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


class UpgradeGate:
    """Touched only on the event loop's thread (the list/watch hands results over to it)."""

    def __init__(
        self,
        kb: KnowledgeBase,
        inventory: Inventory,
        publisher: Publisher,
        metrics: GateMetrics | None = None,
        *,
        is_leader: Callable[[], bool] = lambda: True,
        settle: float = 0.5,
        resync: float = 30.0,
        scopes: tuple[str, ...] = (EVERY,),
        unseen: tuple[str, ...] = (),
    ) -> None:
        self.kb, self.inventory, self.publisher, self.metrics = kb, inventory, publisher, metrics
        self.is_leader = is_leader
        self.settle, self.resync = settle, resync
        self.apps: dict[str, AppRecord] = {}
        self.health = ScopeHealth(scopes)
        #: patterns of Argo CD's application namespaces that no watched scope covers (argocd_params.py)
        self.unseen = unseen
        #: Secret names to evaluate again
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        #: the last report per Secret name (for tests and the benchmark); None: not gated
        self.reports: dict[str, Report | None] = {}
        #: evaluations done, for tests and benchmarks
        self.evaluations = 0
        inventory.subscribe(self._on_secret)

    # -- inputs ------------------------------------------------------------------------------------
    @property
    def listed(self) -> bool:
        """Whether the Applications of every watched namespace were listed once."""
        return self.health.synced()

    def consumer(self, scope: str = EVERY) -> Consumer:
        return Consumer(lambda items: self._listed(items, scope), self._upserted, self._deleted, self._broken)

    def _listed(self, items: list[dict[str, Any]], scope: str) -> None:
        self.apps = {ref: r for ref, r in self.apps.items() if not in_scope(ref.partition("/")[0], scope)}
        for obj in items:
            record = self._record(obj)
            if record is not None:
                self.apps[record.ref] = record
        self.health.listed(scope)
        self._mark(self._gated())

    def _upserted(self, obj: dict[str, Any]) -> None:
        record = self._record(obj)
        if record is None:
            return
        before = self.apps.get(record.ref)
        if before == record:
            return  # a status write the preflight cannot see (reconciledAt, health, sync)
        self.apps[record.ref] = record
        self._mark(self._clusters_of(record, before))

    def _deleted(self, obj: dict[str, Any]) -> None:
        meta = obj.get("metadata") or {}
        before = self.apps.pop(f"{meta.get('namespace', '')}/{meta.get('name', '')}", None)
        if before is not None:
            self._mark(self._clusters_of(before))

    def _broken(self) -> None:
        """The watch broke: keep what was seen (the relist replaces it) and decide nothing new."""

    def _record(self, obj: dict[str, Any]) -> AppRecord | None:
        meta = obj.get("metadata") or {}
        try:
            return read_application(obj, f"Application {meta.get('namespace', '')}/{meta.get('name', '')}")
        except LifecycleError as exc:
            log.warning("upgrade gate: %s (ignored)", exc.message)
            return None

    def _on_secret(self, change: Change) -> None:
        if change.kind is ChangeKind.DELETE:
            self.reports.pop(change.secret_name, None)
            if self.metrics is not None and change.secret is not None:
                self.metrics.forget(change.secret.name)
            return
        if change.kind is ChangeKind.UPSERT:
            self._mark([change.secret_name])

    # -- which clusters ------------------------------------------------------------------------------
    def _gated(self) -> list[str]:
        return [name for name, s in self.inventory.secrets.items() if upgrade_target(s.annotations) is not None]

    def _clusters_of(self, *records: AppRecord | None) -> list[str]:
        """The gated clusters these Applications deploy to (others need no evaluation)."""
        return [
            name
            for name, secret in self.inventory.secrets.items()
            if upgrade_target(secret.annotations) is not None
            and any(r is not None and deploys_to(r, ClusterRef.of(secret)) for r in records)
        ]

    def _mark(self, names: list[str]) -> None:
        if names:
            self._dirty.update(names)
            self._wake.set()

    # -- evaluation ----------------------------------------------------------------------------------
    def report_for(self, secret: ClusterSecret) -> Report | None:
        """The preflight of ``secret``'s cluster for its upgrade-to target (None: not gated)."""
        target = upgrade_target(secret.annotations)
        if target is None:
            return None
        self.evaluations += 1
        report = evaluate(self.kb, ClusterRef.of(secret), self.apps.values(), target)
        return unseen_blocker(report, self.unseen) if self.unseen else report

    async def check(self, name: str) -> bool:
        """Evaluate and publish one cluster; False when it must be tried again."""
        secret = self.inventory.secrets.get(name)
        if secret is None:
            return True
        report = self.report_for(secret)
        self.reports[name] = report
        if self.metrics is not None:
            self.metrics.show(secret.name, report)
        now = _now()
        publication = decide(secret.annotations, report, now)
        if publication is None:
            return True
        return await self.publisher.publish(secret, publication, now)

    async def step(self) -> None:
        """Everything marked so far, once each (after the list: before it nothing is known). A follower
        keeps its marks and evaluates nothing: the leader publishes, and a new leader starts from them."""
        if not self.listed or not self.is_leader():
            return
        names, self._dirty = self._dirty, set()
        for name in sorted(names):
            try:
                done = await self.check(name)
            except Exception:  # a bug must not stop the gate for every cluster: log it, retry later
                log.exception("upgrade gate: cluster Secret %s", name)
                done = False
            if not done:
                self._dirty.add(name)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + self.resync
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(due):  # not wait_for: it can lose a cancel on 3.11
                    await self._wake.wait()
            self._wake.clear()
            if loop.time() >= due:
                # a resync: leadership may have moved, a write may have failed; a cluster that is not
                # gated costs a look at its annotations only
                self._mark(list(self.inventory.secrets))
                due = loop.time() + self.resync
            await asyncio.sleep(self.settle)  # let a burst of changes arrive: one evaluation for all
            await self.step()


def attach(
    kube: Kube,
    inventory: Inventory,
    applications: Mapping[str, ListWatch],
    is_leader: Callable[[], bool],
    *,
    instance: str = "",
    registry: CollectorRegistry = REGISTRY,
    unseen: tuple[str, ...] = (),
) -> tuple[UpgradeGate, asyncio.Task[None]]:
    """The gate of ``generator serve``: fed by the generator's own Applications list/watch (the one the
    mass-drop guard reads; no second watch), publishing on the Secrets through the API, leader only;
    ``unseen``: Argo CD's application namespaces those watches do not cover. Call before
    ``applications.start()``."""
    publisher = KubePublisher(kube, is_leader, instance=instance)
    gate = UpgradeGate(
        builtin(), inventory, publisher, GateMetrics(registry), scopes=tuple(applications), unseen=unseen
    )
    for scope, source in applications.items():
        source.consumer = tee(source.consumer, gate.consumer(scope))
    return gate, asyncio.create_task(gate.run(), name="upgrade-gate")
