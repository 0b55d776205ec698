"""The running rollout: the state machine fed from the fleet, its state kept on the ApplicationSet.

Every replica answers the plugin generator, so every replica plans: ``RolloutKeeper.plan`` builds each
cluster's ``Member`` from the fleet (its phase, the upgrade gate's annotations) and from the
ApplicationSet's Applications (revision, Synced, Healthy, failing), reads the state from the
``argocd-lifecycle.io/rollout`` annotation of the ApplicationSet (a list/watch of the ApplicationSets
of the namespace, so no request waits on the API) and runs ``machine.step``. Only the leader keeps what
the step decided: it writes the annotation back (a merge patch of our own keys, as the admission
policy allows), removes a one-shot ``rollout-control`` it acted on, records the Events, posts the
receiver message of a pause, sets the metrics and asks the ApplicationSet to refresh when a bake ends
(and every ``LOOK_SECONDS`` while a rollout moves, since Applications turning Healthy do not make Argo
CD ask). A follower answers what the step decides from the written state without keeping anything.

The leader keeps the last state it wrote per ApplicationSet, so a step never starts from an annotation
the watch has not brought back yet; it forgets it when it loses the Lease.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import logging
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Gauge

from argocd_lifecycle.generators.fleet.applications import AppStatus
from argocd_lifecycle.generators.fleet.events import EventRecorder, EventSpec
from argocd_lifecycle.generators.fleet.list_watch import Consumer, ListWatch
from argocd_lifecycle.generators.fleet.poster import Notifier
from argocd_lifecycle.generators.fleet.refresher import AppSetRefresher, patch_appset
from argocd_lifecycle.generators.fleet.view import ClusterState
from argocd_lifecycle.generators.rollout.errors import RolloutUnavailable
from argocd_lifecycle.generators.rollout.machine import ClusterRollout, Decision, Member, RolloutEvent, Step, step
from argocd_lifecycle.generators.rollout.spec import RolloutSpec
from argocd_lifecycle.generators.rollout.state import (
    CONTROL_ANNOTATION,
    STATE_ANNOTATION,
    Control,
    RolloutState,
    RolloutStateError,
    Status,
    control_of,
    decode,
    encode,
)
from argocd_lifecycle.generators.rollout.summary import Planned, RolloutSummary, planned
from argocd_lifecycle.kube.client import Kube, KubeError
from argocd_lifecycle.model import Annotation
from argocd_lifecycle.times import format_rfc3339

log = logging.getLogger(__name__)

#: while a rollout moves, the leader asks its ApplicationSet to refresh at least this often
LOOK_SECONDS = 30.0
_APPSETS = ("argoproj.io", "v1alpha1")
TRIGGER = "RolloutPaused"

#: the Applications of an ApplicationSet by the (server, name) of their cluster
Statuses = Callable[[str], Mapping[tuple[str, str], Sequence[AppStatus]]]


@dataclass(frozen=True)
class AppSet:
    annotations: Mapping[str, str]
    uid: str = ""


class AppSetCache:
    """The ApplicationSets of the namespace (their annotations and uid), fed by a list/watch."""

    def __init__(self) -> None:
        self._sets: dict[str, AppSet] = {}
        self._listed = False

    def synced(self) -> bool:
        return self._listed

    def get(self, name: str) -> AppSet | None:
        return self._sets.get(name)

    def items(self) -> list[tuple[str, AppSet]]:
        """Every ApplicationSet by name, sorted."""
        return sorted(self._sets.items())

    def listed(self, items: list[dict[str, Any]]) -> None:
        self._sets.clear()
        for obj in items:
            self.upserted(obj)
        self._listed = True

    def upserted(self, obj: dict[str, Any]) -> None:
        meta = obj.get("metadata") or {}
        annotations = meta.get("annotations") or {}
        if not isinstance(annotations, dict):
            annotations = {}
        ours = {str(k): str(v) for k, v in annotations.items() if k in (STATE_ANNOTATION, CONTROL_ANNOTATION)}
        self._sets[str(meta.get("name") or "")] = AppSet(ours, str(meta.get("uid") or ""))

    def deleted(self, obj: dict[str, Any]) -> None:
        self._sets.pop(str((obj.get("metadata") or {}).get("name") or ""), None)

    def broken(self) -> None:
        """A broken watch keeps what it knew; the next list replaces it."""

    def consumer(self) -> Consumer:
        return Consumer(self.listed, self.upserted, self.deleted, self.broken)


def appset_watch(kube: Kube, namespace: str, cache: AppSetCache, loop: asyncio.AbstractEventLoop) -> ListWatch:
    return ListWatch(
        f"ApplicationSets in {namespace}",
        kube.custom.list_namespaced_custom_object,
        (*_APPSETS, namespace, "applicationsets"),
        kube,
        cache.consumer(),
        loop=loop,
    )


class RolloutSink(Protocol):
    """Where the leader's results go (Kubernetes and the receiver; a recording fake in tests)."""

    def annotate(self, appset: str, annotations: Mapping[str, str | None]) -> None: ...

    def tell(self, appset: str, uid: str, event: RolloutEvent, revision: str) -> None: ...

    def wake(self, appset: str, after: float) -> None: ...


def member(cluster: ClusterState, apps: Sequence[AppStatus]) -> Member:
    revisions = sorted({a.revision for a in apps})
    failing = [a for a in apps if a.failing]
    ann = cluster.annotations
    return Member(
        name=cluster.name,
        phase=cluster.phase,
        labels=cluster.labels,
        annotations=ann,
        gated=bool(ann.get(Annotation.UPGRADE_TO)) and ann.get(Annotation.UPGRADE_BLOCKERS, "0") not in ("", "0"),
        # several Applications on different revisions: nothing one revision could keep
        revision=revisions[0] if len(revisions) == 1 else "",
        synced=bool(apps) and all(a.synced for a in apps),
        healthy=bool(apps) and all(a.healthy for a in apps),
        failing=failing[0].failing if failing else "",
        application=", ".join(a.application for a in (failing or apps)) or cluster.name,
    )


class RolloutMetrics:
    def __init__(self, registry: CollectorRegistry | None) -> None:
        self.wave = Gauge(
            "argocd_lifecycle_rollout_wave",
            "Index of the wave each ApplicationSet's rollout is at (the number of waves once done)",
            ["applicationset"],
            registry=registry,
        )
        self.status = Gauge(
            "argocd_lifecycle_rollout_status",
            "1 for the status of each ApplicationSet's rollout (Rolling, Baking, Paused, Done, Aborted)",
            ["applicationset", "status"],
            registry=registry,
        )
        self.clusters = Gauge(
            "argocd_lifecycle_rollout_clusters",
            "Clusters of each ApplicationSet's rollout per rollout.state",
            ["applicationset", "state"],
            registry=registry,
        )

    def set(self, appset: str, state: RolloutState, decisions: Mapping[str, Decision]) -> None:
        self.wave.labels(appset).set(state.wave)
        for status in Status:
            self.status.labels(appset, status.value).set(1 if status is state.status else 0)
        for each in ClusterRollout:
            self.clusters.labels(appset, each.value).set(sum(1 for d in decisions.values() if d.state is each))


class RolloutKeeper:
    def __init__(
        self,
        appsets: AppSetCache,
        statuses: Statuses,
        is_leader: Callable[[], bool],
        sink: RolloutSink,
        *,
        registry: CollectorRegistry | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.appsets, self.statuses, self.is_leader, self.sink, self.clock = appsets, statuses, is_leader, sink, clock
        self.metrics = RolloutMetrics(registry)
        #: the leader's last written state per ApplicationSet: (state, its annotation text)
        self._mine: dict[str, tuple[RolloutState, str]] = {}
        #: a one-shot control acted on, ignored until the watch shows it removed
        self._consumed: dict[str, str] = {}
        self._leading = False
        #: what this replica's last plan saw per ApplicationSet, and the last state annotation decoded
        #: (its text, the state or why it does not decode): what ``summaries`` shows without an API call
        self._planned: dict[str, Planned] = {}
        self._decoded: dict[str, tuple[str, RolloutState | None, str]] = {}

    def plan(self, appset: str, spec: RolloutSpec, clusters: Sequence[ClusterState]) -> dict[str, Decision]:
        """Each cluster's decision for this answer; RolloutUnavailable when the state cannot be read."""
        if not self.appsets.synced():
            raise RolloutUnavailable(
                "the ApplicationSets of the namespace have not been listed yet, so the rollout's state is "
                "unknown; answering nothing rather than revisions that may move backwards"
            )
        leading = self.is_leader()
        if leading != self._leading:
            self._mine.clear()  # whatever another leader wrote meanwhile is in the annotation
            self._leading = leading
        found = self.appsets.get(appset)
        if found is None:  # every name a request may carry would take memory and a metric label here
            raise RolloutUnavailable(
                f"ApplicationSet {appset!r} is not one of the namespace's ApplicationSets (yet): a rollout keeps "
                "its state on it, so nothing is answered until the watch knows it"
            )
        text = found.annotations.get(CONTROL_ANNOTATION, "")
        if self._consumed.get(appset) is not None and self._consumed[appset] != text:
            self._consumed.pop(appset)
        control = Control.NONE if self._consumed.get(appset) == text else control_of(text)
        by_cluster = self.statuses(appset)
        members = [member(c, by_cluster.get((c.server, c.name), ())) for c in clusters]
        now = datetime.fromtimestamp(self.clock(), UTC)
        result = step(self._state(appset, found), spec, members, now, control)
        if leading:
            self._keep(appset, found, result, text)
        self._planned[appset] = planned(tuple(w.name for w in spec.waves), result.decisions, now)
        return dict(result.decisions)

    def summaries(self) -> list[RolloutSummary]:
        """Each watched ApplicationSet with a rollout (a state annotation, or planned here), by name: from
        memory only (the fleet page, ``GET /api/v1/rollouts``)."""
        out: list[RolloutSummary] = []
        names = set()
        for name, found in self.appsets.items():
            names.add(name)
            text = found.annotations.get(STATE_ANNOTATION)
            seen = self._planned.get(name)
            if text is None and seen is None:
                continue
            mine = self._mine.get(name)
            if mine is not None:
                out.append(RolloutSummary(name, mine[0], "", seen))
                continue
            state, unreadable = self._decode(name, text)
            out.append(RolloutSummary(name, state, unreadable, seen))
        # forget what was kept of ApplicationSets the watch no longer shows
        for gone in (self._planned.keys() | self._decoded.keys()) - names:
            self._planned.pop(gone, None)
            self._decoded.pop(gone, None)
        return out

    def _decode(self, appset: str, text: str | None) -> tuple[RolloutState | None, str]:
        if text is None:
            return None, ""
        memo = self._decoded.get(appset)
        if memo is not None and memo[0] == text:
            return memo[1], memo[2]
        try:
            state, unreadable = decode(text), ""
        except RolloutStateError as exc:
            state, unreadable = None, exc.message
        self._decoded[appset] = (text, state, unreadable)
        return state, unreadable

    def _state(self, appset: str, found: AppSet) -> RolloutState | None:
        mine = self._mine.get(appset)
        if mine is not None:
            return mine[0]
        text = found.annotations.get(STATE_ANNOTATION)
        if text is None:
            return None
        try:
            return decode(text)
        except RolloutStateError as exc:
            # starts over from what the Applications run: a waiting cluster keeps its revision
            log.warning("ApplicationSet %s: %s; the rollout starts over", appset, exc.message)
            return None

    def _keep(self, appset: str, found: AppSet, result: Step, control_text: str) -> None:
        encoded = encode(result.state)
        patch: dict[str, str | None] = {}
        # compared with what the watch shows, not with the last write: a write that failed is made again
        # (one the watch has not brought back yet is repeated, which changes nothing)
        if encoded != found.annotations.get(STATE_ANNOTATION):
            patch[STATE_ANNOTATION] = encoded
        # a one-shot control acted on goes; one acted on before that the watch still shows is removed
        # again (the first removal may have failed), never acted on twice
        if result.consumed or (control_text and self._consumed.get(appset) == control_text):
            patch[CONTROL_ANNOTATION] = None
            self._consumed[appset] = control_text
        if patch:
            self.sink.annotate(appset, patch)
        self._mine[appset] = (result.state, encoded)
        for event in result.events:
            self.sink.tell(appset, found.uid, event, result.state.revision)
        self.metrics.set(appset, result.state, result.decisions)
        if result.state.status in (Status.ROLLING, Status.BAKING):
            after = LOOK_SECONDS
            if result.wake is not None:
                after = min(after, max(1.0, result.wake.timestamp() - self.clock()))
            self.sink.wake(appset, after)


def paused_event(appset: str, namespace: str, event: RolloutEvent, revision: str) -> dict[str, Any]:
    """The receiver's external event of a pause, naming the Applications that caused it."""
    episode = f"{namespace}/{appset}/{revision}/{event.message}"
    return {
        "trigger": TRIGGER,
        "severity": "warning",
        "namespace": namespace,
        "message": event.message,
        "revision": hashlib.sha256(episode.encode()).hexdigest()[:16],
        "labels": {"applicationSet": appset, "rollout": revision, "applications": ", ".join(event.applications)},
    }


def event_spec(namespace: str, appset: str, uid: str, event: RolloutEvent, nanos: int) -> EventSpec:
    """The Event on the ApplicationSet at ``nanos`` (Unix nanoseconds): each its own, named for that moment
    (``<appset>.<hex UnixNano>``), so the next wave's does not bump it and overwrite its message, and
    ``timeline`` orders a bake and the next wave's start recorded in the same second."""
    kind = "Warning" if event.warning else "Normal"
    return EventSpec(
        namespace,
        appset,
        uid,
        event.reason.value,
        event.message,
        kind,
        "ApplicationSet",
        "/".join(_APPSETS),
        unique=f"{nanos:x}",
    )


class KubeSink:
    """Implements ``RolloutSink`` on the event loop: patches, Events and posts run in threads."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        kube: Kube,
        namespace: str,
        *,
        notifier: Notifier | None = None,
        refresher: AppSetRefresher | None = None,
        instance: str = "",
    ) -> None:
        self.loop, self.kube, self.namespace = loop, kube, namespace
        self.notifier, self.refresher = notifier, refresher
        self.events = EventRecorder(kube, instance=instance)
        self._tasks: set[concurrent.futures.Future[None]] = set()
        self._wakes: dict[str, asyncio.TimerHandle] = {}

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.run_coroutine_threadsafe(coro, self.loop)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _call(self, fn: Callable[..., Any], *args: Any) -> None:
        try:
            await asyncio.to_thread(fn, *args)
        except KubeError as exc:
            log.warning("%s", exc.message)

    def annotate(self, appset: str, annotations: Mapping[str, str | None]) -> None:
        self._spawn(self._call(self._patch, appset, dict(annotations)))

    def _patch(self, appset: str, annotations: dict[str, str | None]) -> None:
        patch_appset(self.kube, self.namespace, appset, {"annotations": annotations})

    def tell(self, appset: str, uid: str, event: RolloutEvent, revision: str) -> None:
        nanos = time.time_ns()
        spec = event_spec(self.namespace, appset, uid, event, nanos)
        self._spawn(self._call(self.events.record, spec, format_rfc3339(nanos / 1e9)))
        log.info("ApplicationSet %s: %s", appset, event.message)
        if event.applications and self.notifier is not None and self.notifier.external_url:
            body = paused_event(appset, self.namespace, event, revision)
            self.notifier.post_to(self.notifier.external_url, body, f"{TRIGGER} for {appset}")

    def wake(self, appset: str, after: float) -> None:
        if self.refresher is None:
            return
        refresher = self.refresher

        def schedule() -> None:
            pending = self._wakes.get(appset)
            if pending is not None and pending.when() <= self.loop.time() + after:
                return  # an earlier look is already due
            if pending is not None:
                pending.cancel()
            self._wakes[appset] = self.loop.call_later(after, again)

        def again() -> None:
            self._wakes.pop(appset, None)
            self._spawn(self._call(refresher.refresh_one, appset))

        self.loop.call_soon_threadsafe(schedule)

    def close(self) -> None:
        for handle in self._wakes.values():
            with contextlib.suppress(Exception):
                handle.cancel()
