"""What the engine remembers of a deleted cluster Secret: whether the departure was explicit, and whether a
Secret re-created for the same server is the same admitted cluster coming back (seen as a follower,
which takes every phase from the Secrets, so no probe runs); and what a new leader does first."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from argocd_lifecycle.generators.fleet.engine import FleetEngine, Outputs
from argocd_lifecycle.generators.fleet.inventory import Inventory
from argocd_lifecycle.generators.fleet.lifecycle import ADMITTED, LifecycleSettings
from argocd_lifecycle.generators.fleet.prober import ProberSettings
from argocd_lifecycle.generators.fleet.writer import LogWriter
from argocd_lifecycle.model import Annotation, Phase
from tests.unit.core.cluster_secret_manifests import secret

SETTINGS = LifecycleSettings(ready_after=2, unreachable_after=2, certificate_warning=timedelta(days=1))


def _secret(name: str, version: str, **annotations: str) -> dict:
    obj = secret(name, string_data={"name": name, "server": f"https://{name}.test", "config": "{}"})
    obj["metadata"]["annotations"].update(annotations)
    obj["metadata"]["resourceVersion"] = version
    return obj


def test_a_re_created_secret_keeps_an_admitted_cluster_admitted_unless_it_was_decommissioned() -> None:
    async def story() -> None:
        inventory = Inventory("argocd")
        engine = FleetEngine(inventory, SETTINGS, ProberSettings(interval=3600, timeout=1, concurrency=1))
        ready = {Annotation.PHASE: "Ready", ADMITTED: "true"}
        gone = {**ready, Annotation.PHASE: "Decommissioning", Annotation.DECOMMISSION: "true"}
        inventory.replace_all([(_secret("slip", "1", **ready), ""), (_secret("gone", "2", **gone), ""),
                               (_secret("new", "3"), "")])  # fmt: skip
        shown = {c.name: c for c in engine.clusters()}
        assert shown["slip"].ready and shown["gone"].phase is Phase.DECOMMISSIONING and not shown["new"].ready
        inventory.replace_all([])  # all three Secrets deleted
        assert engine.departed() == {"https://gone.test"}  # only the decommissioned one left explicitly
        inventory.replace_all([(_secret(n, f"1{i}"), "") for i, n in enumerate(("slip", "gone", "new"))])
        back = {c.name: c for c in engine.clusters()}
        assert back["slip"].ready and back["slip"].phase is Phase.PENDING  # no Application lost at the gate
        assert not back["gone"].ready and not back["new"].ready  # a retired cluster returning is new
        assert engine.departed() == frozenset()
        await engine.aclose()

    asyncio.run(story())


def test_a_new_secret_for_a_cluster_argo_cd_deploys_to_is_admitted_at_once() -> None:
    """After a restart the removal is forgotten, but the ApplicationSet's Applications still target it."""

    async def story() -> None:
        inventory = Inventory("argocd")
        engine = FleetEngine(inventory, SETTINGS, ProberSettings(interval=3600, timeout=1, concurrency=1))
        engine.deployed = lambda server: server == "https://slip.test"
        inventory.replace_all([(_secret("slip", "1"), ""), (_secret("new", "2"), "")])
        shown = {c.name: c for c in engine.clusters()}
        assert shown["slip"].ready and not shown["new"].ready
        await engine.aclose()

    asyncio.run(story())


def test_a_new_leader_asks_the_applicationsets_to_refresh() -> None:
    """A relabelling made while no replica led changed no phase: only this refresh brings it to Argo CD."""

    class Pokes:
        count = 0

        def poke(self) -> None:
            self.count += 1

    async def story() -> None:
        pokes = Pokes()
        engine = FleetEngine(
            Inventory("argocd"), SETTINGS, ProberSettings(interval=3600, timeout=1, concurrency=1),
            Outputs(refresher=pokes),  # type: ignore[arg-type]
        )  # fmt: skip
        engine.set_leader(True)
        assert pokes.count == 1
        engine.set_leader(True)  # already leading: nothing new
        assert pokes.count == 1
        await engine.aclose()

    asyncio.run(story())


def test_the_leader_writes_the_phase_again_when_someone_removed_it_from_the_secret() -> None:
    """The other replicas read the phase from the Secret: a `kubectl replace` must not leave them guessing."""

    class Recorder(LogWriter):
        on_secret = True

        def __init__(self) -> None:
            self.written: list[str] = []

        async def write_phase(self, secret: Any, state: Any) -> bool:
            self.written.append(state.phase.value)
            return True

    async def story() -> None:
        inventory, recorder = Inventory("argocd"), Recorder()
        probing = ProberSettings(interval=3600, timeout=0.2, concurrency=1)
        engine = FleetEngine(inventory, SETTINGS, probing, Outputs(writer=recorder))
        engine.set_leader(True)
        ready = {Annotation.PHASE: "Ready", Annotation.PHASE_SINCE: "2026-01-01T00:00:00Z", ADMITTED: "true"}
        inventory.replace_all([(_secret("edge", "1", **ready), "")])
        await asyncio.sleep(0.3)  # registered (resumed: nothing to write) and probed once
        assert recorder.written == []
        inventory.apply(_secret("edge", "2"))  # replaced without our annotations
        await asyncio.sleep(0.1)
        assert recorder.written == ["Ready"]
        await engine.aclose()

    asyncio.run(story())
