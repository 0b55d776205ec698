"""The answer cache: work is redone only when the fleet changes, whatever way the inventory hands it out."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace

from argocd_lifecycle.generators.service.answers import ParamsCache
from argocd_lifecycle.generators.service.inputs import parse_request
from argocd_lifecycle.generators.service.policy import PolicyTable
from argocd_lifecycle.model import Phase

from .fleet_fixture import sample_fleet

REQUEST = parse_request(b'{"applicationSetName":"a","input":{}}')


def test_unchanged_fleet_keeps_generation_and_cached_answer_even_when_objects_are_rebuilt() -> None:
    cache = ParamsCache(PolicyTable.default())
    fleet = sample_fleet()
    first = cache.refresh(fleet)
    answer = cache.answer(REQUEST, first)
    assert cache.refresh(list(fleet)) is first  # same objects, new list
    rebuilt = [replace(c) for c in fleet]  # equal values, new objects (an inventory that rebuilds)
    assert cache.refresh(rebuilt).generation == first.generation
    assert cache.answer(REQUEST, cache.refresh(rebuilt)) is answer


def test_a_changed_cluster_is_recomputed_and_old_answers_dropped() -> None:
    cache = ParamsCache(PolicyTable.default())
    fleet = sample_fleet()
    first = cache.refresh(fleet)
    answer = cache.answer(REQUEST, first)
    edge = next(i for i, c in enumerate(fleet) if c.name == "edge-7")
    fleet[edge] = replace(fleet[edge], phase=Phase.READY)  # edge-7 recovers
    second = cache.refresh(fleet)
    assert second.generation == first.generation + 1
    assert second.params[0] is first.params[0]  # untouched clusters keep their parameter sets
    assert second.params[edge] is not first.params[edge]
    fresh = cache.answer(REQUEST, second)
    assert fresh is not answer
    phases = {p["name"]: p["lifecycle"]["phase"] for p in json.loads(fresh.body)["output"]["parameters"]}
    assert phases["prod-us-1"] == "Degraded"
    assert phases["edge-7"] == "Ready"


def test_removed_cluster_changes_the_answer() -> None:
    cache = ParamsCache(PolicyTable.default())
    fleet = sample_fleet()
    cache.answer(REQUEST, cache.refresh(fleet))
    shorter = cache.answer(REQUEST, cache.refresh(fleet[1:]))
    assert fleet[0].name not in shorter.names
    assert gzip.decompress(shorter.gzipped) == shorter.body
