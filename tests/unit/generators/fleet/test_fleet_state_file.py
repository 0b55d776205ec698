"""The memory of ``--clusters-from`` mode: phases and explicit departures survive a restart of the engine,
the guard's remembered answers survive with them, and a bad file stops the start-up naming it."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path

import pytest

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.generators.fleet.engine import FleetEngine, Outputs
from argocd_lifecycle.generators.fleet.inventory import Inventory
from argocd_lifecycle.generators.fleet.lifecycle import ADMITTED, LifecycleSettings
from argocd_lifecycle.generators.fleet.prober import ProberSettings
from argocd_lifecycle.generators.fleet.state_file import StateFile, StateWriter, default_path
from argocd_lifecycle.generators.fleet.view import ClusterState, Target
from argocd_lifecycle.model import Annotation, Phase
from tests.unit.core.cluster_secret_manifests import secret

# port 1 refuses at once: every probe fails, which moves no admitted cluster within one probe
SERVER = "https://127.0.0.1:1"
SLOW = ProberSettings(interval=3600, timeout=0.5, concurrency=4)
SETTINGS = LifecycleSettings(ready_after=2, unreachable_after=3, certificate_warning=timedelta(days=1))


def _secret(name: str, **annotations: str) -> dict:
    obj = secret(name, string_data={"name": name, "server": f"{SERVER}/{name}", "config": "{}"})
    obj["metadata"]["annotations"].update(annotations)
    return obj


async def _engine(state: StateFile, *secrets: dict) -> FleetEngine:
    inventory = Inventory("argocd")
    engine = FleetEngine(inventory, SETTINGS, SLOW, Outputs(writer=StateWriter(state)), memory=state)
    engine.set_leader(True)
    inventory.replace_all([(s, "") for s in secrets])
    for _ in range(50):  # each cluster's task registers it, then probes once
        await asyncio.sleep(0.02)
        if len(engine.clusters()) == len(secrets) and engine.probes >= len(secrets):
            break
    return engine


def _shown(engine: FleetEngine, name: str) -> ClusterState:
    return next(c for c in engine.clusters() if c.name == name)


def test_default_path_is_beside_the_inventory_never_inside_it(tmp_path: Path) -> None:
    (tmp_path / "clusters").mkdir()
    assert default_path(tmp_path / "clusters") == tmp_path / ".clusters.lifecycle-state.json"
    assert default_path(tmp_path / "fleet.yaml") == tmp_path / ".fleet.yaml.lifecycle-state.json"


def test_a_restart_resumes_every_phase_and_keeps_admitted_clusters_admitted(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    stamp = "2026-01-02T03:04:05Z"
    path.write_text(json.dumps({
        "version": 1,
        "phases": {
            "cluster-ready": {Annotation.PHASE: "Ready", Annotation.PHASE_SINCE: stamp, ADMITTED: "true"},
            # a cancelled decommission: Pending, but past the readiness gate long ago
            "cluster-back": {Annotation.PHASE: "Pending", Annotation.PHASE_SINCE: stamp, ADMITTED: "true"},
        },
    }))  # fmt: skip

    async def story() -> None:
        state = StateFile(path)
        engine = await _engine(state, _secret("ready"), _secret("back"), _secret("new"))
        try:
            ready, back, new = (_shown(engine, n) for n in ("ready", "back", "new"))
            assert (ready.phase, ready.ready) == (Phase.READY, True)
            assert ready.phase_since is not None and ready.phase_since.year == 2026
            assert back.ready and back.phase is Phase.PENDING
            assert new.phase is Phase.PENDING and not new.ready  # never seen: behind the gate
        finally:
            await engine.aclose()
            state.flush()

    asyncio.run(story())
    saved = json.loads(path.read_text())["phases"]
    assert saved["cluster-ready"][Annotation.PHASE] == "Ready"
    assert saved["cluster-new"][Annotation.PHASE] == "Pending" and ADMITTED not in saved["cluster-new"]


def test_a_secret_deleted_while_decommissioning_stays_an_explicit_departure_across_restarts(tmp_path: Path) -> None:
    path = tmp_path / "state.json"

    async def first_run() -> None:
        state = StateFile(path)
        engine = await _engine(state, _secret("gone", **{Annotation.DECOMMISSION: "true"}), _secret("slip"))
        try:
            assert _shown(engine, "gone").phase is Phase.DECOMMISSIONING
            engine.inventory.replace_all([])  # both Secrets deleted; only one was decommissioned first
            assert engine.departed() == {f"{SERVER}/gone"}
            assert engine.identify(f"{SERVER}/slip", "") == (f"{SERVER}/slip", "slip")
        finally:
            await engine.aclose()
            state.flush()

    async def second_run() -> None:
        engine = await _engine(StateFile(path))
        try:
            assert engine.departed() == {f"{SERVER}/gone"}
            assert engine.identify(f"{SERVER}/gone", "") == (f"{SERVER}/gone", "gone")
        finally:
            await engine.aclose()

    asyncio.run(first_run())
    assert json.loads(path.read_text())["phases"] == {}  # deleted Secrets leave no phase behind
    asyncio.run(second_run())


def test_the_guards_remembered_answers_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    first = StateFile(path)
    clusters = [ClusterState(name="a", server="https://a", secret_name="cluster-a")]
    first.answers.answered("guestbook", clusters)  # no running loop: written at once
    again = StateFile(path)
    assert again.answers.targets("guestbook") == {Target("https://a", "a")}
    assert again.answers.targets("other") == frozenset()
    assert again.answers.deploys_to("https://a") and not again.answers.deploys_to("https://b")


def test_changes_in_a_burst_are_written_once(tmp_path: Path) -> None:
    path = tmp_path / "state.json"

    async def burst() -> tuple[int, int]:
        state = StateFile(path)
        before = path.stat().st_mtime_ns
        for i in range(20):
            state.record_phase(f"cluster-{i}", {Annotation.PHASE: "Pending"})
        unchanged = path.stat().st_mtime_ns
        await asyncio.sleep(0.4)
        return before - unchanged, len(json.loads(path.read_text())["phases"])

    assert asyncio.run(burst()) == (0, 20)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "Expecting property name"),
        ('{"version": 2}', "not a state file of version 1"),
        ('{"version": 1, "phases": {"a": {"x": 1}}}', "phases.a: expected an object of strings"),
        ('{"version": 1, "answers": {"a": [{"server": 5}]}}', "answers.a[0]: expected an object of strings"),
    ],
)
def test_a_malformed_state_file_stops_the_start_naming_the_file(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "state.json"
    path.write_text(text)
    with pytest.raises(ConfigError) as refused:
        StateFile(path)
    assert refused.value.message.startswith(f"state file {path}: ")
    assert problem in refused.value.message and "delete it to start from nothing" in refused.value.message


def test_a_missing_folder_stops_the_start(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"state file .*/missing/state.json: .*give --state-file a writable path"):
        StateFile(tmp_path / "missing" / "state.json")
