"""Telling the rest of the system about a transition.

``Notifier`` posts each lifecycle event (DESIGN.md §4 JSON) to the receiver, signed with the shared
HMAC scheme, from a queue so probes never wait on it. ``AppSetRefresher`` asks every ApplicationSet
that uses the plugin generator to refresh (``argocd.argoproj.io/application-set-refresh: "true"``),
coalescing a burst of transitions into one round, so Applications follow within seconds instead of
waiting for ``requeueAfterSeconds``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any

import httpx

from argocd_lifecycle.backoff import Backoff
from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.generators.fleet.lifecycle import LifecycleEvent, Tracked
from argocd_lifecycle.generators.service.params import rfc3339
from argocd_lifecycle.kube import MERGE_PATCH, Kube, KubeError

# one declaration of DESIGN §4's lifecycle event JSON, shared with the receiver that checks it
from argocd_lifecycle.lifecycle_event import LifecycleEventBody
from argocd_lifecycle.model import Annotation
from argocd_lifecycle.signing import sign

log = logging.getLogger(__name__)


def lifecycle_event(secret: ClusterSecret, state: Tracked, event: LifecycleEvent) -> LifecycleEventBody:
    return {
        "reason": event.reason.value,
        "cluster": secret.name,
        "server": secret.server,
        "phase": event.phase.value,
        "previousPhase": event.previous_phase.value,
        "since": rfc3339(state.since),
        "message": event.message,
        "kubernetesVersion": state.git_version.removeprefix("v"),
    }


class Notifier:
    def __init__(self, url: str, secret: bytes, *, attempts: int = 4, timeout: float = 5.0) -> None:
        self.url, self._secret, self.attempts = url, secret, attempts
        self._queue: asyncio.Queue[LifecycleEventBody] = asyncio.Queue(maxsize=10_000)
        self._client = httpx.AsyncClient(timeout=timeout, trust_env=False)
        self.delivered = 0
        self.failed = 0

    def post(self, payload: LifecycleEventBody) -> None:
        try:
            self._queue.put_nowait(payload)
        except asyncio.QueueFull:
            self.failed += 1
            log.warning("lifecycle event queue full: dropping %s for %s", payload["reason"], payload["cluster"])

    async def _send(self, payload: LifecycleEventBody) -> None:
        body = json.dumps(payload, separators=(",", ":")).encode()
        backoff = Backoff(base=0.5, cap=10.0)
        for _ in range(self.attempts):
            headers = {"Content-Type": "application/json", **sign(self._secret, body, time.time())}
            try:
                resp = await self._client.post(self.url, content=body, headers=headers)
                if resp.status_code < 300:
                    self.delivered += 1
                    return
                problem = f"HTTP {resp.status_code}"
                if 400 <= resp.status_code < 500 and resp.status_code != 429:
                    break  # the receiver refused it: retrying will not help
            except httpx.HTTPError as exc:
                problem = f"{type(exc).__name__}: {exc}"
            await asyncio.sleep(backoff.next())
        self.failed += 1
        log.warning("posting %s for %s to the receiver failed: %s", payload["reason"], payload["cluster"], problem)

    async def run(self) -> None:
        while True:
            await self._send(await self._queue.get())

    async def aclose(self) -> None:
        await self._client.aclose()


def uses_plugin_generator(appset: dict[str, Any], configmap: str) -> bool:
    """Any plugin generator (nested in matrix/merge too) whose configMapRef matches (any, when "")."""

    def walk(node: Any) -> bool:
        if isinstance(node, dict):
            plugin = node.get("plugin")
            if isinstance(plugin, dict):
                ref = (plugin.get("configMapRef") or {}).get("name", "")
                if not configmap or ref == configmap:
                    return True
            return any(walk(v) for v in node.values())
        if isinstance(node, list):
            return any(walk(v) for v in node)
        return False

    return walk((appset.get("spec") or {}).get("generators") or [])


class AppSetRefresher:
    def __init__(
        self, kube: Kube, namespace: str, is_leader: Callable[[], bool], *, configmap: str = "", settle: float = 1.0
    ) -> None:
        self.kube, self.namespace, self.is_leader = kube, namespace, is_leader
        self.configmap, self.settle = configmap, settle
        self._wanted = asyncio.Event()
        self.rounds = 0

    def poke(self) -> None:
        self._wanted.set()

    def refresh_now(self) -> list[str]:
        """One round (blocking): the names of the ApplicationSets asked to refresh."""
        custom = self.kube.custom
        listing = self.kube.call(
            f"list ApplicationSets in {self.namespace}",
            custom.list_namespaced_custom_object,
            "argoproj.io",
            "v1alpha1",
            self.namespace,
            "applicationsets",
        )
        names = [
            str(a["metadata"]["name"]) for a in listing.get("items") or [] if uses_plugin_generator(a, self.configmap)
        ]
        body = {"metadata": {"annotations": {Annotation.APPSET_REFRESH: "true"}}}
        for name in names:
            self.kube.call(
                f"refresh ApplicationSet {self.namespace}/{name}",
                custom.patch_namespaced_custom_object,
                "argoproj.io",
                "v1alpha1",
                self.namespace,
                "applicationsets",
                name,
                body,
                _content_type=MERGE_PATCH,
            )
        self.rounds += 1
        return names

    async def run(self) -> None:
        while True:
            await self._wanted.wait()
            await asyncio.sleep(self.settle)  # let a burst of transitions land first
            self._wanted.clear()
            if not self.is_leader():
                continue
            try:
                await asyncio.to_thread(self.refresh_now)
            except KubeError as exc:
                log.warning("%s", exc.message)
