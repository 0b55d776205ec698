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

from argocd_lifecycle.generators.fleet.namespaces import Namespaces, custom_list, scope_label
from argocd_lifecycle.generators.fleet.view import qualified, split_key
from argocd_lifecycle.kube.client import MERGE_PATCH, Kube, KubeError
from argocd_lifecycle.kube.lists import pages
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
    """Refreshes the ApplicationSets of every watched namespace (a tenant's depend on the fleet too)."""

    def __init__(
        self,
        kube: Kube,
        namespaces: Namespaces,
        is_leader: Callable[[], bool],
        *,
        configmap: str = "",
        settle: float = 1.0,
    ) -> None:
        self.kube, self.namespaces, self.is_leader = kube, namespaces, is_leader
        self.configmap, self.settle = configmap, settle
        self._wanted = asyncio.Event()
        self.rounds = 0

    def poke(self) -> None:
        self._wanted.set()

    def refresh_now(self) -> list[str]:
        """One round (blocking): the keys (``view.qualified``) of the ApplicationSets asked to refresh."""
        keys = []
        for scope in self.namespaces.scopes:
            fn, args = custom_list(self.kube, "applicationsets", scope)
            for appset in pages(self.kube, f"list ApplicationSets in {scope_label(scope)}", fn, *args):
                meta = appset.get("metadata") or {}
                namespace = str(meta.get("namespace") or "")
                if self.namespaces.watched(namespace) and uses_plugin_generator(dict(appset), self.configmap):
                    keys.append(qualified(namespace, str(meta.get("name") or ""), self.namespaces.home))
        for key in keys:
            self.refresh_one(key)
        self.rounds += 1
        return keys

    def refresh_one(self, key: str) -> None:
        """Ask one ApplicationSet to call its generators again (blocking; any replica may).

        Argo CD removes its refresh annotation only after a reconcile that succeeded, and reconciles only
        when an annotation changes: after a refused answer the annotation stays, and setting it again
        would change nothing. So each request also stamps ``refresh-requested`` with the time."""
        namespace, name = split_key(key, self.namespaces.home)
        annotations = {Annotation.APPSET_REFRESH: "true", REQUESTED: format_rfc3339(time.time(), micro=True)}
        patch_appset(self.kube, namespace, name, {"annotations": annotations})

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
