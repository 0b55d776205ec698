"""Kubernetes Events the generator records: one Event object per (object incarnation, reason).

A repeat bumps ``count`` and ``lastTimestamp`` instead of creating another Event, as client-go's
recorder does. The lifecycle writer records them on cluster Secrets, the mass-drop guard's reporter
on ApplicationSets.
"""

from __future__ import annotations

import hashlib
import socket
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.kube.client import MERGE_PATCH, Kube, KubeConflict, KubeNotFound
from argocd_lifecycle.model import EVENT_SOURCE


@dataclass(frozen=True)
class EventSpec:
    namespace: str
    #: the involved object's name
    name: str
    uid: str
    reason: str
    message: str
    kind: str = "Warning"
    object_kind: str = "Secret"
    object_api_version: str = "v1"
    #: a new Event per occurrence, named ``<name>.<unique>`` (``""``: one per object incarnation and reason,
    #: repeats bump it). A rollout's waves pass the hex UnixNano of the moment, as client-go's recorders name
    #: Events, so each wave keeps its message and readers order Events of the same second
    unique: str = ""

    @property
    def object_name(self) -> str:
        """One Event object per (object incarnation, reason), or per occurrence with ``unique``."""
        if self.unique:
            return f"{self.name}.{self.unique}"
        digest = hashlib.sha256(f"{self.uid}/{self.reason}".encode()).hexdigest()[:16]
        return f"{self.name}.{digest}"


class EventRecorder:
    """Creates or bumps Events (blocking calls: run them in a thread)."""

    def __init__(self, kube: Kube, *, instance: str = "") -> None:
        self.kube = kube
        self.instance = instance or socket.gethostname()
        self._counts: dict[str, int] = {}

    def record(self, spec: EventSpec, stamp: str) -> None:
        """Raises KubeError when the API refuses."""
        core, namespace, name = self.kube.core, spec.namespace, spec.object_name
        what = f"record Event {spec.reason} on {spec.object_kind} {namespace}/{spec.name}"
        count = self._counts.get(name)
        if count is None:
            involved = {
                "apiVersion": spec.object_api_version,
                "kind": spec.object_kind,
                "name": spec.name,
                "namespace": namespace,
            }
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
                if not spec.unique:  # an Event of one occurrence is never bumped: nothing to remember
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
            self.record(spec, stamp)
            return
        self._counts[name] = count + 1
