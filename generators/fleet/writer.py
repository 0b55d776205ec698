"""Where lifecycle results go: the cluster Secret's annotations and Kubernetes Events.

``KubeWriter`` merge-patches only the phase annotations and records one Event per (Secret, reason),
bumping ``count``/``lastTimestamp`` on repeats (events.py). Every call first asks ``is_leader``: a replica
that lost the Lease stops writing at once. ``LogWriter`` is the stand-in without Kubernetes
(``--clusters-from``): the same facts, on stderr.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.generators.fleet.events import EventRecorder, EventSpec
from argocd_lifecycle.generators.fleet.inventory import Change
from argocd_lifecycle.generators.fleet.lifecycle import ADMITTED, LifecycleEvent, Tracked
from argocd_lifecycle.kube.client import Kube, KubeError
from argocd_lifecycle.model import Annotation
from argocd_lifecycle.times import format_rfc3339

log = logging.getLogger(__name__)

INVALID_SECRET_REASON = "InvalidClusterSecret"  # noqa: S105 - an Event reason


def phase_annotations(state: Tracked) -> dict[str, str]:
    """The phase annotations (the version only once a probe has reported it, ``admitted`` only once
    the cluster passed the readiness gate: it never goes back)."""
    out = {Annotation.PHASE: state.phase.value, Annotation.PHASE_SINCE: format_rfc3339(state.since)}
    if state.git_version:
        out[Annotation.KUBERNETES_VERSION] = state.git_version.removeprefix("v")
    if state.ready:
        out[ADMITTED] = "true"
    return out


class Writer(Protocol):
    @property
    def on_secret(self) -> bool:
        """Whether the phase is written on the cluster Secret itself (then annotations someone removed
        from it are written again: the other replicas read the phase from them)."""
        ...

    async def write_phase(self, secret: ClusterSecret, state: Tracked) -> bool:
        """False when the write failed and should be tried again at the next observation."""
        ...

    async def event(self, secret: ClusterSecret, event: LifecycleEvent, when: datetime) -> None: ...

    async def invalid(self, change: Change, when: datetime) -> None: ...


class LogWriter:
    on_secret = False

    async def write_phase(self, secret: ClusterSecret, state: Tracked) -> bool:
        log.info("cluster %s: %s", secret.name, " ".join(f"{k}={v}" for k, v in phase_annotations(state).items()))
        return True

    async def event(self, secret: ClusterSecret, event: LifecycleEvent, when: datetime) -> None:
        level = logging.WARNING if event.warning else logging.INFO
        log.log(level, "cluster %s: %s: %s", secret.name, event.reason.value, event.message)

    async def invalid(self, change: Change, when: datetime) -> None:
        pass  # the inventory already logged it


class KubeWriter:
    #: the phase lives in the Secret's annotations (the engine rewrites them when they were removed)
    on_secret = True

    def __init__(self, kube: Kube, is_leader: Callable[[], bool], *, instance: str = "") -> None:
        self.kube = kube
        self.is_leader = is_leader
        self.events = EventRecorder(kube, instance=instance)
        #: calls that were dropped because this replica was not the leader (for tests and logs)
        self.skipped = 0

    def _allowed(self) -> bool:
        if self.is_leader():
            return True
        self.skipped += 1
        return False

    async def write_phase(self, secret: ClusterSecret, state: Tracked) -> bool:
        if not self._allowed():
            return True  # not ours to write: nothing to retry
        if secret.implicit:
            return True  # no Secret to hold it: the leader keeps the implicit in-cluster phase in memory
        try:
            await asyncio.to_thread(
                self.kube.annotate_secret, secret.namespace, secret.secret_name, phase_annotations(state)
            )
        except KubeError as exc:
            log.warning("%s (will retry)", exc.message)
            return False
        return True

    async def event(self, secret: ClusterSecret, event: LifecycleEvent, when: datetime) -> None:
        if secret.implicit:  # no Secret to attach an Event to: the log (and the receiver) carry it
            await LogWriter().event(secret, event, when)
            return
        kind = "Warning" if event.warning else "Normal"
        spec = EventSpec(secret.namespace, secret.secret_name, secret.uid, event.reason.value, event.message, kind)
        await self._event(spec, when)

    async def invalid(self, change: Change, when: datetime) -> None:
        spec = EventSpec(change.namespace, change.secret_name, change.uid, INVALID_SECRET_REASON, change.problem)
        await self._event(spec, when)

    async def _event(self, spec: EventSpec, when: datetime) -> None:
        if not self._allowed():
            return
        try:
            await asyncio.to_thread(self.events.record, spec, format_rfc3339(when))
        except KubeError as exc:
            log.warning("%s", exc.message)
