"""Where lifecycle results go: the cluster Secret's annotations and Kubernetes Events.

``KubeWriter`` merge-patches only the three phase annotations and creates one Event per (Secret,
reason), bumping ``count``/``lastTimestamp`` on repeats. Every call first asks ``is_leader``: a replica
that lost the Lease stops writing at once. ``LogWriter`` is the stand-in without Kubernetes
(``--clusters-from``): the same facts, on stderr.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.generators.fleet.inventory import Change
from argocd_lifecycle.generators.fleet.lifecycle import LifecycleEvent, Tracked
from argocd_lifecycle.kube import MERGE_PATCH, Kube, KubeConflict, KubeError, KubeNotFound
from argocd_lifecycle.model import EVENT_SOURCE, Annotation
from argocd_lifecycle.times import format_rfc3339

log = logging.getLogger(__name__)

INVALID_SECRET_REASON = "InvalidClusterSecret"  # noqa: S105 - an Event reason


@dataclass(frozen=True)
class EventSpec:
    namespace: str
    secret_name: str
    uid: str
    reason: str
    message: str
    kind: str = "Warning"

    @property
    def object_name(self) -> str:
        """One Event object per (Secret incarnation, reason): repeats bump its count."""
        digest = hashlib.sha256(f"{self.uid}/{self.reason}".encode()).hexdigest()[:16]
        return f"{self.secret_name}.{digest}"


def phase_annotations(state: Tracked) -> dict[str, str]:
    """The three annotations (the version only once a probe has reported it)."""
    out = {Annotation.PHASE: state.phase.value, Annotation.PHASE_SINCE: format_rfc3339(state.since)}
    if state.git_version:
        out[Annotation.KUBERNETES_VERSION] = state.git_version.removeprefix("v")
    return out


class Writer(Protocol):
    async def write_phase(self, secret: ClusterSecret, state: Tracked) -> bool:
        """False when the write failed and should be tried again at the next observation."""
        ...

    async def event(self, secret: ClusterSecret, event: LifecycleEvent, when: datetime) -> None: ...

    async def invalid(self, change: Change, when: datetime) -> None: ...


class LogWriter:
    async def write_phase(self, secret: ClusterSecret, state: Tracked) -> bool:
        log.info("cluster %s: %s", secret.name, " ".join(f"{k}={v}" for k, v in phase_annotations(state).items()))
        return True

    async def event(self, secret: ClusterSecret, event: LifecycleEvent, when: datetime) -> None:
        level = logging.WARNING if event.warning else logging.INFO
        log.log(level, "cluster %s: %s: %s", secret.name, event.reason.value, event.message)

    async def invalid(self, change: Change, when: datetime) -> None:
        pass  # the inventory already logged it


class KubeWriter:
    def __init__(self, kube: Kube, is_leader: Callable[[], bool], *, instance: str = "") -> None:
        self.kube = kube
        self.is_leader = is_leader
        self.instance = instance or socket.gethostname()
        self._counts: dict[str, int] = {}
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
        body = {"metadata": {"annotations": phase_annotations(state)}}
        what = f"annotate Secret {secret.namespace}/{secret.secret_name}"
        try:
            await asyncio.to_thread(
                self.kube.call,
                what,
                self.kube.core.patch_namespaced_secret,
                secret.secret_name,
                secret.namespace,
                body,
                _content_type=MERGE_PATCH,
            )
        except KubeError as exc:
            log.warning("%s (will retry)", exc.message)
            return False
        return True

    async def event(self, secret: ClusterSecret, event: LifecycleEvent, when: datetime) -> None:
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
            await asyncio.to_thread(self._upsert_event, spec, format_rfc3339(when))
        except KubeError as exc:
            log.warning("%s", exc.message)

    def _upsert_event(self, spec: EventSpec, stamp: str) -> None:
        core, namespace, name = self.kube.core, spec.namespace, spec.object_name
        what = f"record Event {spec.reason} on Secret {namespace}/{spec.secret_name}"
        count = self._counts.get(name)
        if count is None:
            involved = {"apiVersion": "v1", "kind": "Secret", "name": spec.secret_name, "namespace": namespace}
            if spec.uid:
                involved["uid"] = spec.uid
            body: dict[str, Any] = {
                "apiVersion": "v1",
                "kind": "Event",
                "metadata": {"name": name, "namespace": namespace},
                "involvedObject": involved,
                "reason": spec.reason,
                "message": spec.message,
                "type": spec.kind,
                "count": 1,
                "firstTimestamp": stamp,
                "lastTimestamp": stamp,
                "source": {"component": EVENT_SOURCE},
                "reportingComponent": EVENT_SOURCE,
                "reportingInstance": self.instance,
            }
            try:
                self.kube.call(what, core.create_namespaced_event, namespace, body)
                self._counts[name] = 1
                return
            except KubeConflict:
                existing = self.kube.call(what, core.read_namespaced_event, name, namespace)
                count = int(existing.get("count") or 1)
        patch = {"count": count + 1, "lastTimestamp": stamp, "message": spec.message}
        try:
            self.kube.call(what, core.patch_namespaced_event, name, namespace, patch, _content_type=MERGE_PATCH)
        except KubeNotFound:  # the Event expired (its TTL is an hour by default): start a new one
            self._counts.pop(name, None)
            self._upsert_event(spec, stamp)
            return
        self._counts[name] = count + 1
