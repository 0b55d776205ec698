"""The running fleet: inventory changes and probes in, state machine steps, writes and posts out.

``FleetEngine`` implements ``FleetView``. While this replica leads, each cluster has one task that
probes it on a jittered period (bounded by a shared semaphore) and handles the cluster's Secret
changes in order, so the state machine sees one observation at a time per cluster. A follower does
no probing: it shows the phases the leader wrote onto the Secrets. ``clusters()`` serves a cached,
sorted list that is rebuilt only when some cluster's visible state changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.generators.fleet.departures import Departures, Memory
from argocd_lifecycle.generators.fleet.directory import Directory
from argocd_lifecycle.generators.fleet.inventory import Change, ChangeKind, Inventory
from argocd_lifecycle.generators.fleet.lifecycle import (
    ADMITTED,
    LifecycleEvent,
    LifecycleSettings,
    Observation,
    Step,
    Tracked,
    register,
    removed,
    step,
)
from argocd_lifecycle.generators.fleet.metrics import FleetMetrics
from argocd_lifecycle.generators.fleet.poster import Notifier, lifecycle_event
from argocd_lifecycle.generators.fleet.probe_result import ProbeResult
from argocd_lifecycle.generators.fleet.prober import Prober, ProberSettings
from argocd_lifecycle.generators.fleet.refresher import AppSetRefresher
from argocd_lifecycle.generators.fleet.view import ClusterState
from argocd_lifecycle.generators.fleet.writer import LogWriter, Writer, phase_annotations
from argocd_lifecycle.model import Annotation, Phase

log = logging.getLogger(__name__)


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _drifted(secret: ClusterSecret, state: Tracked) -> bool:
    """The Secret no longer carries the phase annotations this state would write."""
    return any(secret.annotations.get(k) != v for k, v in phase_annotations(state).items())


def _visible(c: ClusterState) -> tuple[object, ...]:
    """The fields parameter sets are made of: a change in them must reach the ApplicationSets."""
    return (c.name, c.server, c.project, c.labels, c.annotations, c.phase, c.phase_since, c.ready,
            c.git_version, c.upgrade_to)  # fmt: skip


@dataclass
class Outputs:
    """Where results go; only ``writer`` is required."""

    writer: Writer = field(default_factory=LogWriter)
    notifier: Notifier | None = None
    refresher: AppSetRefresher | None = None


class FleetEngine:
    def __init__(
        self,
        inventory: Inventory,
        lifecycle: LifecycleSettings,
        probing: ProberSettings,
        outputs: Outputs | None = None,
        metrics: FleetMetrics | None = None,
        *,
        memory: Memory | None = None,
        directory: Directory | None = None,
        deployed: Callable[[str], bool] = lambda server: False,
    ) -> None:
        """``directory``: where the served clusters go (made by the wiring when others read it first);
        ``deployed``: whether an ApplicationSet deploys to a server now (the guard's baseline)."""
        self.inventory = inventory
        self.lifecycle, self.probing = lifecycle, probing
        self.outputs = outputs or Outputs()
        self.metrics = metrics if metrics is not None else FleetMetrics.null()
        self.prober = Prober(probing)
        self.tracked: dict[str, Tracked] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._changes: dict[str, asyncio.Queue[None]] = {}
        self.directory = directory if directory is not None else Directory(Departures(memory))
        #: clusters whose Secret was deleted
        self.departures = self.directory.departures
        self._semaphore = asyncio.Semaphore(probing.concurrency)
        self._background: set[asyncio.Task[None]] = set()
        self._invalid: dict[str, Change] = {}
        self._unwritten: set[str] = set()
        self.memory = memory
        self.deployed = deployed
        self.leading = False
        #: probes completed (all clusters), for benchmarks and tests
        self.probes = 0
        inventory.subscribe(self._on_change)
        self.metrics.synced.set_function(lambda: 1.0 if self.synced() and not self.stale_seconds() else 0.0)

    # -- FleetView --------------------------------------------------------------------------------
    def clusters(self) -> list[ClusterState]:
        return self.directory.clusters()

    def synced(self) -> bool:
        return self.inventory.synced()

    def stale_seconds(self) -> float:
        return self.inventory.stale_seconds()

    def departed(self) -> frozenset[str]:
        return self.departures.explicit()

    def identify(self, server: str, name: str) -> tuple[str, str]:
        return self.directory.identify(server, name)

    def _observation(self, secret: ClusterSecret, probe: ProbeResult | None) -> Observation:
        creds = secret.credentials
        annotations: Mapping[str, str] = secret.annotations
        if self.memory is not None:  # the phase the writer remembered for this Secret, to resume from
            annotations = {**secret.annotations, **self.memory.phase(secret.secret_name)}
        if Annotation.PHASE not in annotations and self._known_cluster(secret.server):
            annotations = {**annotations, ADMITTED: "true"}
        return Observation(annotations, creds.fingerprint, secret.certificate_expires_at, probe)

    def _known_cluster(self, server: str) -> bool:
        """A new Secret for a cluster that was admitted (its Secret deleted without a decommission and
        re-created, or one an ApplicationSet deploys to already) is that cluster, still admitted: else
        its Applications would go while it waits at the readiness gate again."""
        removal = self.departures.get(server)
        if removal is not None and removal.explicit:
            return False  # decommissioned and gone: back as a new cluster
        return (removal is not None and removal.admitted) or self.deployed(server)

    # -- leadership -------------------------------------------------------------------------------
    def set_leader(self, leading: bool) -> None:
        if leading == self.leading:
            return
        self.leading = leading
        self.metrics.leader.set(1 if leading else 0)
        if leading:
            self.tracked.clear()  # start from what the Secrets say, as a new leader must
            for name in self.inventory.secrets:
                self._start(name)
            if self.outputs.refresher is not None:
                # what changed while no replica led (a relabelled Secret, say) was never pushed to Argo CD
                self.outputs.refresher.poke()
            for change in self._invalid.values():  # reported while following: report them now
                self._spawn(self.outputs.writer.invalid(change, _now()))
        else:
            for name in list(self._tasks):
                self._stop(name)
            self.tracked.clear()
            for secret in self.inventory.secrets.values():
                self._follow(secret)

    # -- inventory changes ------------------------------------------------------------------------
    def _on_change(self, change: Change) -> None:
        self.metrics.clusters.set(len(self.inventory.secrets))
        if change.kind is ChangeKind.INVALID:
            self._invalid[change.secret_name] = change
            self.metrics.invalid.labels(change.secret_name).set(1)
            if self.leading:
                self._spawn(self.outputs.writer.invalid(change, _now()))
            return
        self._invalid.pop(change.secret_name, None)
        with contextlib.suppress(KeyError):
            self.metrics.invalid.remove(change.secret_name)
        if change.kind is ChangeKind.DELETE:
            self._deleted(change)
            return
        assert change.secret is not None
        if not self.leading:
            self._follow(change.secret)
        elif change.secret_name in self._tasks:
            self._changes[change.secret_name].put_nowait(None)
        else:
            self._start(change.secret_name)

    def _deleted(self, change: Change) -> None:
        name = change.secret_name
        self._stop(name)
        self._unwritten.discard(name)
        state = self.tracked.pop(name, None)
        shown = self.directory.pop(name)
        if shown is not None:
            # explicit only when it was Decommissioning before its Secret vanished
            explicit = shown.phase is Phase.DECOMMISSIONING
            self.departures.left(shown.server, shown.name, explicit=explicit, admitted=shown.ready)
            if self.memory is not None:
                self.memory.forget(name)
            self.metrics.forget(shown.name)
        if self.leading and state is not None and change.secret is not None:
            self._spawn(self._emit(change.secret, state, Step(state, (removed(state),))))
        if self.leading and self.outputs.refresher is not None:
            # the departure must reach the ApplicationSets now, not at their 30-minute requeue
            self.outputs.refresher.poke()
        self._spawn(self.prober.forget(name))

    def _follow(self, secret: ClusterSecret) -> None:
        state = register(self._observation(secret, None), self.lifecycle, _now()).state
        self._show(secret, state)

    # -- per-cluster tasks ------------------------------------------------------------------------
    def _start(self, name: str) -> None:
        self._changes[name] = asyncio.Queue()
        self._changes[name].put_nowait(None)  # register first
        self._tasks[name] = asyncio.create_task(self._run(name), name=f"cluster:{name}")

    def _stop(self, name: str) -> None:
        task = self._tasks.pop(name, None)
        self._changes.pop(name, None)
        if task is not None:
            task.cancel()

    def _period(self) -> float:
        return self.probing.interval * (1 - self.probing.jitter * random.random())

    async def _run(self, name: str) -> None:
        loop = asyncio.get_running_loop()
        changes = self._changes[name]
        due = loop.time()  # a new cluster is probed at once
        while True:
            try:
                if changes.empty():
                    # not wait_for: on Python 3.11 it loses a cancel that lands as the change arrives
                    async with asyncio.timeout_at(due):
                        await changes.get()
                else:  # a pending Secret change first (an expired deadline would skip it)
                    changes.get_nowait()
                await self._observe(name, None)
            except TimeoutError:
                due = loop.time() + self._period()
                if not await self._probe(name):
                    return
            except Exception:  # a bug must not silence one cluster for good: log it, keep probing
                log.exception("cluster Secret %s: lifecycle step failed", name)
                due = loop.time() + self._period()

    async def _probe(self, name: str) -> bool:
        """Probe once and step; False when the Secret is gone."""
        secret = self.inventory.secrets.get(name)
        if secret is None:
            return False
        async with self._semaphore:
            result, seconds = await self.prober.probe(secret)
        self.probes += 1
        self.metrics.probed(secret.name, result, seconds)
        await self._observe(name, result)
        return True

    async def _observe(self, name: str, probe: ProbeResult | None) -> None:
        secret = self.inventory.secrets.get(name)
        if secret is None:
            return
        obs = self._observation(secret, probe)
        prev = self.tracked.get(name)
        now = _now()
        out = register(obs, self.lifecycle, now) if prev is None else step(prev, obs, self.lifecycle, now)
        self.tracked[name] = out.state
        self._show(secret, out.state)
        await self._emit(secret, out.state, out, changed=probe is None)

    async def announce(self, secret_name: str, event: LifecycleEvent) -> bool:
        """A lifecycle event from outside the probe loop (Cluster API's worker scaling): the Event, the
        metric and the receiver post a transition gets, no phase change. False when not tracked (yet)."""
        secret, state = self.inventory.secrets.get(secret_name), self.tracked.get(secret_name)
        if secret is None or state is None:
            return False
        await self._emit(secret, state, Step(state, (event,)))
        return True

    async def _emit(self, secret: ClusterSecret, state: Tracked, out: Step, *, changed: bool = False) -> None:
        outputs, now = self.outputs, _now()
        name = secret.secret_name
        # a failed write is retried at the next observation; annotations someone removed (a `kubectl
        # replace` of the Secret) are written again after that change, since the other replicas read the
        # phase from them (not after a probe: the inventory may not have seen our own last write yet)
        drifted = changed and outputs.writer.on_secret and _drifted(secret, state)
        if out.write or name in self._unwritten or drifted:
            if await outputs.writer.write_phase(secret, state):
                self._unwritten.discard(name)
            else:
                self._unwritten.add(name)
        for event in out.events:
            self.metrics.transitions.labels(secret.name, event.reason.value).inc()
            await outputs.writer.event(secret, event, now)
            if outputs.notifier is not None:
                outputs.notifier.post(lifecycle_event(secret, state, event))
        if out.write and outputs.refresher is not None:
            outputs.refresher.poke()

    def _show(self, secret: ClusterSecret, state: Tracked) -> None:
        shown = ClusterState(
            name=secret.name,
            server=secret.server,
            secret_name=secret.secret_name,
            project=secret.project,
            labels=secret.labels,
            annotations=secret.annotations,
            phase=state.phase,
            phase_since=state.since,
            ready=state.ready,
            message=state.message,
            git_version=state.git_version,
            upgrade_to=state.upgrade_to,
            nodes_known=state.nodes_known,
            nodes_unknown=state.nodes_unknown,
            nodes=state.nodes,
            nodes_ready=state.nodes_ready,
            certificate_expires_at=secret.certificate_expires_at,
            implicit=secret.implicit,
        )
        self.departures.returned(shown.server)  # registered again
        before = self.directory.get(secret.secret_name)
        if before is not None and self.outputs.refresher is not None and _visible(before) != _visible(shown):
            # a relabelled or renamed Secret changes answers without any transition
            self.outputs.refresher.poke()
        if before != shown:
            if before is not None and before.name != shown.name:
                self.metrics.forget(before.name)  # the cluster was renamed in its Secret
            self.directory.put(shown)
            self.metrics.set_phase(secret.name, state.phase)

    def _spawn(self, coro: object) -> None:
        task = asyncio.ensure_future(coro)  # type: ignore[call-overload]
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def aclose(self) -> None:
        for name in list(self._tasks):
            self._stop(name)
        await self.prober.aclose()
