"""A Warning Event on every CAPI object that does not parse, where ``kubectl describe`` shows it.

The store keeps such an object as a ``Problem`` and decides nothing on it; this says so on the object
itself (reason ``InvalidCapiObject``, the message naming the field, never a value), once per message.
Only the leader records; what was seen while following is recorded when this replica leads. A
kubeconfig Secret's problem is told on its Cluster by the reconciler (``InvalidKubeconfig``), where the
operator looks, so it is not repeated on the Secret.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from argocd_lifecycle.generators.capi.names import Resource
from argocd_lifecycle.generators.fleet.events import EventRecorder, EventSpec
from argocd_lifecycle.kube.client import KubeError
from argocd_lifecycle.times import format_rfc3339

log = logging.getLogger(__name__)
REASON = "InvalidCapiObject"
#: objects remembered at most (a namespace can hold any number of broken objects; memory cannot)
MAX_KEPT = 10_000

_Key = tuple[str, str, str]  # kind, namespace, name


class ProblemEvents:
    def __init__(self, recorder: EventRecorder | None, is_leader: Callable[[], bool]) -> None:
        self.recorder, self.is_leader = recorder, is_leader
        self._pending: dict[_Key, EventSpec] = {}
        self._told: dict[_Key, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Events recorded (for tests and logs)
        self.recorded = 0

    def seen(self, resource: Resource, obj: Mapping[str, Any], message: str) -> None:
        """An object of ``resource`` did not parse (called on the event loop's thread)."""
        meta = obj.get("metadata")
        meta = meta if isinstance(meta, Mapping) else {}
        namespace, name = str(meta.get("namespace") or ""), str(meta.get("name") or "")
        key = (resource.kind, namespace, name)
        if not namespace or not name or self._told.get(key) == message:
            return
        if key not in self._pending and len(self._pending) >= MAX_KEPT:
            return
        api_version = f"{resource.group}/{resource.version}"
        uid = str(meta.get("uid") or "")
        self._pending[key] = EventSpec(namespace, name, uid, REASON, message, "Warning", resource.kind, api_version)
        task = asyncio.get_running_loop().create_task(self.flush())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def flush(self) -> None:
        """Record what is pending, if this replica leads (the source calls it again periodically)."""
        if self.recorder is None or not self.is_leader():
            return
        while self._pending:
            key, spec = next(iter(self._pending.items()))
            del self._pending[key]
            try:
                await asyncio.to_thread(self.recorder.record, spec, format_rfc3339(datetime.now(UTC)))
            except KubeError as exc:
                log.warning("%s", exc.message)
                continue
            if len(self._told) >= MAX_KEPT:
                self._told.pop(next(iter(self._told)))
            self._told[key] = spec.message
            self.recorded += 1
