"""Asking the ApplicationSets that use our plugin generator to refresh after a transition.

Argo CD re-runs a generator only every ``requeueAfterSeconds`` (30 minutes by default), so after a
phase change or a departure every ApplicationSet with a plugin generator (nested in matrix/merge too)
gets the ``argocd.argoproj.io/application-set-refresh: "true"`` annotation. A burst of transitions is
coalesced into one round, and only the leader patches, so Applications follow within seconds. Each
request also stamps ``argocd-lifecycle.io/refresh-requested``: Argo CD reconciles only when an annotation
changes, and after a refused answer it leaves its refresh annotation in place.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from argocd_lifecycle.kube.client import MERGE_PATCH, Kube, KubeError
from argocd_lifecycle.model import PREFIX, Annotation
from argocd_lifecycle.times import format_rfc3339

REQUESTED = PREFIX + "refresh-requested"

log = logging.getLogger(__name__)


def patch_appset(kube: Kube, namespace: str, name: str, metadata: dict[str, Any]) -> None:
    """A merge patch of one ApplicationSet's metadata (our annotations; a resourceVersion makes it a
    compare-and-set). Blocking; raises KubeError."""
    kube.call(
        f"annotate ApplicationSet {namespace}/{name}",
        kube.custom.patch_namespaced_custom_object,
        "argoproj.io",
        "v1alpha1",
        namespace,
        "applicationsets",
        name,
        {"metadata": metadata},
        _content_type=MERGE_PATCH,
    )


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
        for name in names:
            self.refresh_one(name)
        self.rounds += 1
        return names

    def refresh_one(self, name: str) -> None:
        """Ask one ApplicationSet to call its generators again (blocking; any replica may).

        Argo CD removes its refresh annotation only after a reconcile that succeeded, and reconciles only
        when an annotation changes: after a refused answer the annotation stays, and setting it again
        would change nothing. So each request also stamps ``refresh-requested`` with the time."""
        annotations = {Annotation.APPSET_REFRESH: "true", REQUESTED: format_rfc3339(time.time(), micro=True)}
        patch_appset(self.kube, self.namespace, name, {"annotations": annotations})

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
