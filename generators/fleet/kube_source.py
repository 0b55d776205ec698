"""Cluster Secrets from the management cluster: list, watch from the list's resourceVersion, relist.

Runs in its own thread (the official client blocks) and hands every result to the event loop. After a
410 Gone it relists at once; after any other failure (refused, dropped stream, 5xx) it marks the
inventory broken, backs off with jitter and relists, since a successful list is the only proof that
the watch is whole again. A watch the server ends normally is resumed from the last resourceVersion.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from collections.abc import Callable
from typing import Any

from argocd_lifecycle.backoff import Backoff
from argocd_lifecycle.cluster_secrets import SecretWire
from argocd_lifecycle.generators.fleet.inventory import Inventory
from argocd_lifecycle.kube import Kube, KubeError, KubeGone
from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, CLUSTER_SECRET_LABEL_VALUE

log = logging.getLogger(__name__)

SELECTOR = f"{CLUSTER_SECRET_LABEL}={CLUSTER_SECRET_LABEL_VALUE}"
_PAGE = 500


class KubeSource:
    def __init__(
        self,
        kube: Kube,
        namespace: str,
        inventory: Inventory,
        loop: asyncio.AbstractEventLoop,
        *,
        watch_timeout: tuple[int, int] = (240, 300),
        backoff: Backoff | None = None,
    ) -> None:
        self.kube, self.namespace, self.inventory, self.loop = kube, namespace, inventory, loop
        self.watch_timeout = watch_timeout
        self.backoff = backoff or Backoff()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cluster-secret-watch", daemon=True)
        #: counts for tests and metrics: lists done, watches opened
        self.lists = 0
        self.watches = 0
        self.expired = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _call(self, fn: Callable[..., None], *args: Any) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    def _list(self) -> str:
        items: list[tuple[SecretWire, str]] = []
        cont = ""
        while True:
            kwargs: dict[str, Any] = {"label_selector": SELECTOR, "limit": _PAGE}
            if cont:
                kwargs["_continue"] = cont
            page = self.kube.call(
                f"list cluster Secrets in {self.namespace}",
                self.kube.core.list_namespaced_secret,
                self.namespace,
                **kwargs,
            )
            items.extend((obj, "") for obj in page.get("items") or [])
            meta = page.get("metadata") or {}
            cont = meta.get("continue") or ""
            if not cont:
                self.lists += 1
                self._call(self.inventory.replace_all, items)
                return str(meta.get("resourceVersion") or "")

    def _watch(self, version: str) -> str:
        low, high = self.watch_timeout
        timeout = random.randint(low, high)
        self.watches += 1
        events = self.kube.watch(
            f"watch cluster Secrets in {self.namespace}",
            self.kube.core.list_namespaced_secret,
            self.namespace,
            label_selector=SELECTOR,
            resource_version=version,
            allow_watch_bookmarks=True,
            timeout_seconds=timeout,
            _request_timeout=(10, timeout + 30),
        )
        for kind, obj in events:
            if self._stop.is_set():
                break
            version = str((obj.get("metadata") or {}).get("resourceVersion") or version)
            if kind in ("ADDED", "MODIFIED"):
                self._call(self.inventory.apply, obj)
            elif kind == "DELETED":
                self._call(self.inventory.delete, (obj.get("metadata") or {}).get("name") or "")
            self.backoff.reset()
        return version

    def _run(self) -> None:
        version = ""
        while not self._stop.is_set():
            try:
                if not version:
                    version = self._list()
                version = self._watch(version)
            except KubeGone as exc:
                self.expired += 1
                log.info("cluster Secret watch expired (%s): listing again", exc.message)
                version = ""
                self._stop.wait(self.backoff.next())  # short at first; grows if 410s repeat
            except Exception as exc:
                message = exc.message if isinstance(exc, KubeError) else f"{type(exc).__name__}: {exc}"
                self._call(self.inventory.mark_broken)
                delay = self.backoff.next()
                log.warning("cluster Secret watch broken: %s; retrying in %.1fs", message, delay)
                version = ""
                self._stop.wait(delay)
