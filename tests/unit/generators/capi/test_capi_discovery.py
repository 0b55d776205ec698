"""The CAPI source watches nothing before it knows every kind the API serves.

Were the Clusters watched (and listed) while the MachineDeployments were still being asked about, the
store would say it is synced without any worker group: the reconciler would then write our Secret
without its worker count, and a scaling made while no generator ran would never be told (what
``generator serve`` saw after a restart).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

from argocd_lifecycle.generators.capi.announce import ClusterEvents
from argocd_lifecycle.generators.capi.names import CUSTOM_RESOURCES, MACHINE_DEPLOYMENTS
from argocd_lifecycle.generators.capi.settings import CapiSettings
from argocd_lifecycle.generators.capi.source import CapiSource
from argocd_lifecycle.generators.fleet.engine import FleetEngine
from argocd_lifecycle.generators.fleet.inventory import Inventory
from argocd_lifecycle.generators.fleet.lifecycle import LifecycleSettings
from argocd_lifecycle.generators.fleet.prober import ProberSettings

EMPTY = {"items": [], "metadata": {"resourceVersion": "1"}}


class FakeKube:
    """Serves every CAPI kind, with empty lists and quiet watches. The last kind's discovery answers
    only once something was listed (or after a second): a source that watches early lists meanwhile."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.listed = threading.Event()
        self._lock = threading.Lock()
        self.custom = SimpleNamespace(get_api_resources=self._resources, list_namespaced_custom_object=self._custom)
        self.core = SimpleNamespace(list_namespaced_secret=self._secrets)

    def _record(self, call: str) -> None:
        with self._lock:
            self.calls.append(call)

    def _resources(self, group: str, version: str) -> dict[str, Any]:
        if sum(c.startswith("discover") for c in self.calls) == len(CUSTOM_RESOURCES) - 1:
            self.listed.wait(1.0)
        self._record("discover")
        return {"resources": [{"name": r.plural} for r in CUSTOM_RESOURCES if (r.group, r.version) == (group, version)]}

    def _custom(self, group: str, version: str, namespace: str, plural: str, **_: Any) -> dict[str, Any]:
        self._record(f"list {plural}")
        self.listed.set()
        return EMPTY

    def _secrets(self, namespace: str, **_: Any) -> dict[str, Any]:
        self._record("list secrets")
        self.listed.set()
        return EMPTY

    def call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("_request_timeout", None)
        return fn(*args, **kwargs)

    def watch(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Iterator[tuple[str, dict[str, Any]]]:
        threading.Event().wait(0.2)  # a quiet watch the server ends
        return iter(())


def test_the_store_is_synced_only_once_the_worker_groups_are_listed_too() -> None:
    async def story() -> None:
        kube = FakeKube()
        engine = FleetEngine(
            Inventory("argocd"),
            LifecycleSettings(certificate_warning=timedelta(days=1)),
            ProberSettings(interval=3600, timeout=1, concurrency=1),
        )
        source = CapiSource(
            kube,  # type: ignore[arg-type]
            engine,
            CapiSettings(("capi-clusters",)),
            lambda: False,
            ClusterEvents(None, lambda: False),
        )
        task = asyncio.create_task(source.run())
        try:
            for _ in range(1000):
                if source.store.synced():
                    break
                await asyncio.sleep(0.01)
            assert source.store.synced()
            assert "capi-clusters" in source.store.tables[MACHINE_DEPLOYMENTS.plural].listed
            first_list = next(i for i, c in enumerate(kube.calls) if c.startswith("list"))
            assert kube.calls[:first_list] == ["discover"] * len(CUSTOM_RESOURCES)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    asyncio.run(story())
