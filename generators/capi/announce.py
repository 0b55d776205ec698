"""Events on CAPI Clusters, and lifecycle steps that come from CAPI rather than from a probe.

Every lifecycle Event the fleet records on one of our Secrets (registered, ready, upgrading,
decommissioning, removed, scaled, ...) is recorded on its CAPI Cluster too (``MirroredWriter``), so
``kubectl describe cluster`` tells the same story as the Secret. Our own warnings (an unusable
kubeconfig, a refused server, a Secret of that name we do not own) go to the CAPI Cluster, once per
message; a conflict over our own Secret's server goes on that Secret as well.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.generators.capi.names import CLUSTERS, SOURCE_UID_ANNOTATION
from argocd_lifecycle.generators.capi.objects import CapiCluster, ClusterKey
from argocd_lifecycle.generators.capi.registration import is_ours, source_of
from argocd_lifecycle.generators.fleet.engine import FleetEngine
from argocd_lifecycle.generators.fleet.events import EventRecorder, EventSpec
from argocd_lifecycle.generators.fleet.inventory import Change
from argocd_lifecycle.generators.fleet.lifecycle import LifecycleEvent, Tracked
from argocd_lifecycle.generators.fleet.writer import Writer
from argocd_lifecycle.kube.client import KubeError
from argocd_lifecycle.model import Reason
from argocd_lifecycle.times import format_rfc3339

log = logging.getLogger(__name__)
API_VERSION = f"{CLUSTERS.group}/{CLUSTERS.version}"


class ClusterEvents:
    """Records Events on CAPI Clusters (leader only; a refused write is logged, never raised)."""

    def __init__(self, recorder: EventRecorder | None, is_leader: Callable[[], bool]) -> None:
        self.recorder, self.is_leader = recorder, is_leader
        self._warned: dict[tuple[ClusterKey, str], str] = {}
        self._warned_secrets: dict[tuple[str, str], str] = {}
        #: Events recorded (for tests and logs)
        self.recorded = 0

    async def record(self, key: ClusterKey, uid: str, reason: str, message: str, *, kind: str, when: datetime) -> None:
        spec = EventSpec(key.namespace, key.name, uid, reason, message, kind, CLUSTERS.kind, API_VERSION)
        await self._record(spec, when)

    async def warn_secret(self, secret: ClusterSecret, reason: str, message: str) -> None:
        """A Warning on one of our cluster Secrets (where the operator looks), once per message."""
        if self._warned_secrets.get((secret.secret_name, reason)) == message:
            return
        self._warned_secrets[(secret.secret_name, reason)] = message
        spec = EventSpec(secret.namespace, secret.secret_name, secret.uid, reason, message)
        await self._record(spec, datetime.now(UTC))

    async def _record(self, spec: EventSpec, when: datetime) -> None:
        if self.recorder is None or not self.is_leader():
            return
        try:
            await asyncio.to_thread(self.recorder.record, spec, format_rfc3339(when))
        except KubeError as exc:
            log.warning("%s", exc.message)
            return
        self.recorded += 1

    async def warn(self, cluster: CapiCluster | None, reason: str, message: str) -> None:
        """A Warning on the CAPI Cluster, once per (Cluster, reason, message); logged as well."""
        if cluster is None or self._warned.get((cluster.key, reason)) == message:
            return
        log.warning("Cluster %s: %s", cluster.key, message)
        self._warned[(cluster.key, reason)] = message
        await self.record(cluster.key, cluster.uid, reason, message, kind="Warning", when=datetime.now(UTC))

    async def mirror(self, secret: ClusterSecret, event: LifecycleEvent, when: datetime) -> None:
        key = source_of(secret.annotations) if is_ours(secret.labels) else None
        if key is None:
            return
        kind = "Warning" if event.warning else "Normal"
        message = f"{event.message} (Argo CD cluster Secret {secret.namespace}/{secret.secret_name})"
        uid = secret.annotations.get(SOURCE_UID_ANNOTATION, "")
        await self.record(key, uid, event.reason.value, message, kind=kind, when=when)


class MirroredWriter:
    """The fleet's writer, with every Event on one of our Secrets recorded on its CAPI Cluster as well."""

    def __init__(self, inner: Writer, events: ClusterEvents) -> None:
        self.inner, self.events = inner, events

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)  # counters and settings of the wrapped writer

    @property
    def on_secret(self) -> bool:
        return self.inner.on_secret

    async def write_phase(self, secret: ClusterSecret, state: Tracked) -> bool:
        return await self.inner.write_phase(secret, state)

    async def event(self, secret: ClusterSecret, event: LifecycleEvent, when: datetime) -> None:
        await self.inner.event(secret, event, when)
        await self.events.mirror(secret, event, when)

    async def invalid(self, change: Change, when: datetime) -> None:
        await self.inner.invalid(change, when)


def fleet_announcer(engine: FleetEngine) -> Callable[[str, Reason, str], Any]:
    """``announce(secret_name, reason, message)``: a lifecycle step without a phase change, told the way
    the engine tells transitions (Event on the Secret and, mirrored, on the CAPI Cluster; metric; post)."""

    async def announce(secret_name: str, reason: Reason, message: str) -> bool:
        state = engine.tracked.get(secret_name)
        if state is None:
            return False
        return await engine.announce(secret_name, LifecycleEvent(reason, message, state.phase, state.phase))

    return announce
