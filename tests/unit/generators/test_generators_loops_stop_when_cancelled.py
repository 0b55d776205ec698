"""The serve loops end when cancelled, even when the cancel lands as the thing they wait for arrives.

On Python 3.11, ``asyncio.wait_for`` returns the awaited result and drops a cancel that lands while that
result is on its way, so a loop around it never ends: ``Fleet.aclose`` awaited the upgrade gate's task
for ever (a watch event woke the gate just as the fleet closed), and a cluster's probe loop outlived a
step-down. Each test wakes one loop and cancels it in the same step, the moment that lost the cancel.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.generators.capi.announce import ClusterEvents
from argocd_lifecycle.generators.capi.reconciler import Reconciler
from argocd_lifecycle.generators.capi.settings import CapiSettings
from argocd_lifecycle.generators.capi.store import Store
from argocd_lifecycle.generators.fleet.engine import FleetEngine
from argocd_lifecycle.generators.fleet.inventory import Inventory
from argocd_lifecycle.generators.fleet.lifecycle import LifecycleSettings
from argocd_lifecycle.generators.fleet.probe_result import ProbeResult
from argocd_lifecycle.generators.fleet.prober import Prober, ProberSettings
from argocd_lifecycle.generators.preflight.gate import UpgradeGate
from argocd_lifecycle.generators.preflight.publish import LogPublisher
from argocd_lifecycle.model import Annotation
from tests.unit.core.cluster_secret_manifests import secret


def _secret(version: str, **annotations: str) -> Any:
    obj: Any = secret("edge", string_data={"name": "edge", "server": "https://edge.test", "config": "{}"})
    obj["metadata"]["annotations"].update(annotations)
    obj["metadata"]["resourceVersion"] = version
    return obj


async def _ended(task: asyncio.Task[Any]) -> bool:
    """Whether ``task`` finished as cancelled (the old code never finished: the wait gives up)."""
    await asyncio.wait({task}, timeout=10)
    return task.cancelled()


class _Unreachable(Prober):
    """Answers at once, without a network."""

    async def probe(self, cluster: ClusterSecret) -> tuple[ProbeResult, float]:
        return ProbeResult(reachable=False, error="connect: Connection refused"), 0.0


def test_a_cluster_loop_ends_when_the_replica_steps_down_as_its_secret_changes() -> None:
    async def story() -> None:
        inventory = Inventory("argocd")
        probing = ProberSettings(interval=3600, timeout=1, concurrency=1)
        engine = FleetEngine(inventory, LifecycleSettings(certificate_warning=timedelta(days=1)), probing)
        engine.prober = _Unreachable(probing)
        inventory.replace_all([(_secret("1"), "")])
        engine.set_leader(True)
        (task,) = [t for t in asyncio.all_tasks() if t.get_name() == "cluster:cluster-edge"]
        while engine.probes == 0:  # registered and probed once: now waiting for a change or the period
            await asyncio.sleep(0)
        inventory.apply(_secret("2", team="payments"))
        engine.set_leader(False)
        assert await _ended(task), "the cluster's loop still runs after the step-down"
        await engine.aclose()

    asyncio.run(story())


def test_the_upgrade_gate_ends_when_cancelled_as_a_secret_change_wakes_it() -> None:
    async def story() -> None:
        inventory = Inventory("argocd")
        gate = UpgradeGate(builtin(), inventory, LogPublisher(), settle=0)
        task = asyncio.create_task(gate.run())
        await asyncio.sleep(0)  # waiting for a wake-up
        inventory.apply(_secret("1", **{Annotation.UPGRADE_TO: "1.35"}))
        task.cancel()
        assert await _ended(task), "the gate still runs after its cancel"

    asyncio.run(story())


def test_the_capi_reconciler_ends_when_cancelled_as_it_is_poked() -> None:
    async def story() -> None:
        inventory = Inventory("argocd")
        reconciler = Reconciler(
            None,  # type: ignore[arg-type]  # a follower never calls the API
            Store(),
            inventory,
            CapiSettings(("capi-clusters",)),
            is_leader=lambda: False,
            events=ClusterEvents(None, lambda: False),
            announce=lambda name, reason, message: asyncio.sleep(0, False),
        )
        task = asyncio.create_task(reconciler.run())
        await asyncio.sleep(0)
        reconciler.poke([])
        task.cancel()
        assert await _ended(task), "the reconciler still runs after its cancel"

    asyncio.run(story())
