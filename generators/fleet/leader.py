"""Leader election with a ``coordination.k8s.io/v1`` Lease, as client-go's leaderelection does it.

The holder renews every ``retry`` seconds; a candidate takes the Lease over once the holder's record
has not changed for ``duration`` seconds, measured on the candidate's own clock (no clock-skew
assumptions). ``is_leader()`` is false as soon as a renewal is overdue by ``renew_deadline``, so a
replica cut off from the API server stops writing before anyone else can take over.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.kube.client import Kube, KubeConflict, KubeError, KubeNotFound
from argocd_lifecycle.times import format_rfc3339

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LeaseSettings:
    namespace: str
    identity: str
    name: str = "argocd-lifecycle-generator"
    duration: float = 15.0
    renew_deadline: float = 10.0
    retry: float = 2.0


def _microtime() -> str:
    """Now as a Lease's ``renewTime``/``acquireTime`` (metav1.MicroTime)."""
    return format_rfc3339(time.time(), micro=True)


class LeaderElector:
    def __init__(
        self,
        kube: Kube,
        settings: LeaseSettings,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.kube, self.settings, self.loop = kube, settings, loop
        self.on_change: Callable[[bool], None] = lambda leading: None
        self._leading = False
        self._renewed_at = 0.0
        self._observed: tuple[str, str] = ("", "")
        self._observed_at = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="leader-election", daemon=True)

    def is_leader(self) -> bool:
        return self._leading and time.monotonic() < self._renewed_at + self.settings.renew_deadline

    def start(self, on_change: Callable[[bool], None]) -> None:
        """Campaign, telling ``on_change`` (on the loop) each time this replica gains or loses the Lease."""
        self.on_change = on_change
        self._thread.start()

    def stop(self) -> None:
        """Stop campaigning and give the Lease up, so another replica takes over at once."""
        self._stop.set()
        self._thread.join(timeout=self.settings.retry + 5)
        if self._leading:
            try:
                lease = self._read()
                if lease and (lease.get("spec") or {}).get("holderIdentity") == self.settings.identity:
                    lease["spec"]["holderIdentity"] = ""
                    self._replace(lease)
            except KubeError as exc:
                log.warning("releasing the Lease: %s", exc.message)
            self._set(False)

    def _set(self, leading: bool) -> None:
        if leading:
            self._renewed_at = time.monotonic()
        if leading != self._leading:
            self._leading = leading
            log.info("%s the Lease %s", "acquired" if leading else "lost", self.settings.name)
            if not self.loop.is_closed():
                self.loop.call_soon_threadsafe(self.on_change, leading)

    def _read(self) -> dict[str, Any] | None:
        s = self.settings
        try:
            lease: dict[str, Any] = self.kube.call(
                f"read Lease {s.namespace}/{s.name}", self.kube.coordination.read_namespaced_lease, s.name, s.namespace
            )
        except KubeNotFound:
            return None
        return lease

    def _replace(self, lease: dict[str, Any]) -> None:
        s = self.settings
        self.kube.call(
            f"update Lease {s.namespace}/{s.name}",
            self.kube.coordination.replace_namespaced_lease,
            s.name,
            s.namespace,
            lease,
        )

    def try_once(self) -> bool:
        """One acquire-or-renew round; returns whether this replica leads afterwards."""
        s = self.settings
        now = _microtime()
        lease = self._read()
        if lease is None:
            body = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {"name": s.name, "namespace": s.namespace},
                "spec": {
                    "holderIdentity": s.identity,
                    "leaseDurationSeconds": int(s.duration),
                    "acquireTime": now,
                    "renewTime": now,
                    "leaseTransitions": 0,
                },
            }
            try:
                self.kube.call(
                    f"create Lease {s.namespace}/{s.name}",
                    self.kube.coordination.create_namespaced_lease,
                    s.namespace,
                    body,
                )
            except KubeConflict:
                return False  # another replica created it first
            return True
        spec = lease.setdefault("spec", {})
        holder = str(spec.get("holderIdentity") or "")
        record = (holder, str(spec.get("renewTime") or ""))
        if record != self._observed:
            self._observed, self._observed_at = record, time.monotonic()
        if holder and holder != s.identity:
            duration = float(spec.get("leaseDurationSeconds") or s.duration)
            if time.monotonic() < self._observed_at + duration:
                return False
            log.info("the Lease held by %s expired: taking over", holder)
        if holder != s.identity:
            spec["acquireTime"] = now
            spec["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + 1
        spec.update(holderIdentity=s.identity, renewTime=now, leaseDurationSeconds=int(s.duration))
        try:
            self._replace(lease)
        except KubeConflict:
            return False
        return True

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._set(self.try_once())
            except KubeError as exc:
                log.warning("leader election: %s", exc.message)
                if not self.is_leader():
                    self._set(False)
            self._stop.wait(self.settings.retry)
