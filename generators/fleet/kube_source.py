"""Cluster Secrets from the management cluster into the inventory (list, watch, relist: list_watch.py).

A failure other than 410 Gone marks the inventory broken (the service answers 503 past
``--max-staleness``); the next successful list marks it healthy again.
"""

from __future__ import annotations

import asyncio
from typing import Any

from argocd_lifecycle.backoff import Backoff
from argocd_lifecycle.cluster_secrets import SecretWire
from argocd_lifecycle.generators.fleet.inventory import Inventory
from argocd_lifecycle.generators.fleet.list_watch import Consumer, ListWatch
from argocd_lifecycle.kube.client import Kube
from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, CLUSTER_SECRET_LABEL_VALUE

SELECTOR = f"{CLUSTER_SECRET_LABEL}={CLUSTER_SECRET_LABEL_VALUE}"


class KubeSource(ListWatch):
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
        def listed(items: list[dict[str, Any]]) -> None:
            inventory.replace_all([(_wire(obj), "") for obj in items])

        def deleted(obj: dict[str, Any]) -> None:
            inventory.delete((obj.get("metadata") or {}).get("name") or "")

        consumer = Consumer(
            listed=listed,
            upserted=lambda obj: inventory.apply(_wire(obj)),
            deleted=deleted,
            broken=inventory.mark_broken,
        )
        super().__init__(
            f"cluster Secrets in {namespace}",
            kube.core.list_namespaced_secret,
            (namespace,),
            kube,
            consumer,
            loop=loop,
            label_selector=SELECTOR,
            watch_timeout=watch_timeout,
            backoff=backoff,
        )
        self.inventory = inventory


def _wire(obj: dict[str, Any]) -> SecretWire:
    return obj  # type: ignore[return-value]  # raw JSON; the inventory checks it when parsing
