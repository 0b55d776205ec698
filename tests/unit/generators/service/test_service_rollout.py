"""Answers to an input with a ``rollout``: every set carries rollout.revision/wave/state, the clusters are
exactly those without it, the mass-drop guard still judges, and what cannot be seen is refused."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from argocd_lifecycle.generators.fleet.view import ClusterState
from argocd_lifecycle.generators.rollout.errors import RolloutUnavailable
from argocd_lifecycle.generators.rollout.keeper import AppSetCache, RolloutKeeper
from argocd_lifecycle.generators.rollout.machine import ClusterRollout, Decision
from argocd_lifecycle.generators.rollout.spec import RolloutSpec
from argocd_lifecycle.generators.service.answers import Answer, ParamsService
from argocd_lifecycle.generators.service.errors import InputError, Unavailable
from argocd_lifecycle.generators.service.inputs import ParamsRequest, parse_parameters, parse_request
from argocd_lifecycle.generators.service.policy import PolicyTable

from .fleet_fixture import AppsBaseline, MemoryFleet, cluster

APPSET = "guestbook"
ROLLOUT = {
    "revision": "v2.3.0",
    "waves": [{"name": "canary", "labelSelector": {"matchLabels": {"tier": "canary"}}}, {"name": "rest"}],
    "bakeTime": "10m",
    "maxUnavailable": 1,
}


class Planned:
    """A Rollouts that gives the canary the revision and every other cluster v1, and counts its calls."""

    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, str, list[str]]] = []
        self.fail = fail

    def plan(self, appset: str, spec: RolloutSpec, clusters: Sequence[ClusterState]) -> Mapping[str, Decision]:
        if self.fail:
            raise RolloutUnavailable("the ApplicationSets of the namespace have not been listed yet")
        self.calls.append((appset, spec.revision, [c.name for c in clusters]))
        return {
            c.name: Decision(spec.revision, "canary", ClusterRollout.ROLLING)
            if c.labels.get("tier") == "canary"
            else Decision("v1", "rest", ClusterRollout.WAITING)
            for c in clusters
        }


def _fleet(n: int = 4) -> MemoryFleet:
    clusters = [cluster(f"c{i}") for i in range(n)]
    clusters[0] = replace(clusters[0], labels={**clusters[0].labels, "tier": "canary"})
    return MemoryFleet(clusters)


def _service(fleet: MemoryFleet, apps: AppsBaseline, rollouts: Any) -> ParamsService:
    return ParamsService(
        fleet, PolicyTable.default(), max_staleness=60, max_drop_percent=50, baseline=apps, settle=0, rollouts=rollouts
    )


def _ask(service: ParamsService, params: dict[str, Any]) -> Answer:
    return service.execute(ParamsRequest(APPSET, parse_parameters(params), json.dumps(params, sort_keys=True)))


def _sets(answer: Answer) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in json.loads(answer.body)["output"]["parameters"]}


def test_each_set_carries_the_rollout() -> None:
    fleet, apps, planned = _fleet(), AppsBaseline(), Planned()
    sets = _sets(_ask(_service(fleet, apps, planned), {"rollout": ROLLOUT}))
    assert sets["c0"]["rollout"] == {"revision": "v2.3.0", "wave": "canary", "state": "Rolling"}
    assert sets["c1"]["rollout"] == {"revision": "v1", "wave": "rest", "state": "Waiting"}
    assert planned.calls == [(APPSET, "v2.3.0", ["c0", "c1", "c2", "c3"])]


def test_a_rollout_never_changes_the_set_of_clusters() -> None:
    fleet, apps = _fleet(), AppsBaseline()
    plain = _ask(_service(fleet, apps, Planned()), {})
    rolled = _ask(_service(fleet, apps, Planned()), {"rollout": ROLLOUT})
    assert rolled.names == plain.names
    without = {n: {k: v for k, v in p.items() if k not in ("rollout", "input")} for n, p in _sets(rolled).items()}
    assert without == {n: {k: v for k, v in p.items() if k != "input"} for n, p in _sets(plain).items()}


def test_the_input_without_a_rollout_has_no_rollout_keys() -> None:
    sets = _sets(_ask(_service(_fleet(), AppsBaseline(), Planned()), {}))
    assert all("rollout" not in p for p in sets.values())


def test_the_guard_still_judges_an_answer_with_a_rollout() -> None:
    fleet, apps = _fleet(6), AppsBaseline()
    service = _service(fleet, apps, Planned())
    apps.argo_cd_applies(APPSET, sorted(_ask(service, {"rollout": ROLLOUT}).names), fleet)
    nothing = {"rollout": ROLLOUT, "labelSelector": {"matchLabels": {"env": "none"}}}
    with pytest.raises(Unavailable, match="mass-drop"):
        _ask(service, nothing)


def test_a_flat_list_carries_the_rollout_per_cluster() -> None:
    answer = _ask(_service(_fleet(), AppsBaseline(), Planned()), {"rollout": ROLLOUT, "flatList": True})
    clusters = json.loads(answer.body)["output"]["parameters"][0]["clusters"]
    assert {c["name"]: c["rollout"]["revision"] for c in clusters}["c0"] == "v2.3.0"


def test_without_kubernetes_a_rollout_is_refused() -> None:
    with pytest.raises(Unavailable, match="--clusters-from"):
        _ask(_service(_fleet(), AppsBaseline(), None), {"rollout": ROLLOUT})


def test_an_unknown_state_is_refused() -> None:
    with pytest.raises(Unavailable, match="not been listed"):
        _ask(_service(_fleet(), AppsBaseline(), Planned(fail=True)), {"rollout": ROLLOUT})


def test_a_bad_rollout_input_is_400_naming_the_field() -> None:
    body = json.dumps(
        {"applicationSetName": APPSET, "input": {"parameters": {"rollout": {**ROLLOUT, "bakeTime": "soon"}}}}
    )
    with pytest.raises(InputError, match=r"input\.parameters\.rollout\.bakeTime"):
        parse_request(body.encode())


def test_with_the_keeper_the_canary_goes_first() -> None:
    fleet, apps = _fleet(), AppsBaseline()
    cache = AppSetCache()
    cache.listed([{"metadata": {"name": APPSET}}])  # the watch knows the ApplicationSet

    class Sink:
        def annotate(self, appset: str, annotations: Mapping[str, str | None]) -> None: ...

        def tell(self, appset: str, uid: str, event: object, revision: str) -> None: ...

        def wake(self, appset: str, after: float) -> None: ...

    keeper = RolloutKeeper(cache, lambda appset: {}, lambda: True, Sink())
    sets = _sets(_ask(_service(fleet, apps, keeper), {"rollout": ROLLOUT}))
    # no Application runs anything yet: a first install, every cluster gets the revision
    assert {p["rollout"]["revision"] for p in sets.values()} == {"v2.3.0"}
