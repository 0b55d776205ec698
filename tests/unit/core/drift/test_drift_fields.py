"""fieldsV1 trees to field paths, and paths resolved in objects."""

from __future__ import annotations

import json
from typing import Any

import pytest

from argocd_lifecycle.drift.fields import (
    MAX_DEPTH,
    MAX_KEY,
    MAX_PATHS,
    Field,
    FieldsError,
    Index,
    Key,
    Value,
    paths,
    render,
    resolve,
)


def _rendered(tree: dict[str, Any]) -> list[str]:
    return [render(p) for p in paths(tree)]


def test_fields_of_maps_are_leaves() -> None:
    tree = {"f:spec": {"f:replicas": {}, "f:strategy": {"f:type": {}}}}
    assert _rendered(tree) == ["spec.replicas", "spec.strategy.type"]


def test_presence_of_a_map_is_not_a_field_of_its_own() -> None:
    tree = {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}}
    assert _rendered(tree) == ["metadata.labels.app"]


def test_a_map_owned_only_by_presence_is_one_path() -> None:
    assert _rendered({"f:spec": {"f:securityContext": {".": {}}}}) == ["spec.securityContext"]


def test_list_items_by_key() -> None:
    tree = {"f:spec": {"f:containers": {'k:{"name":"web"}': {"f:env": {'k:{"name":"LOG_LEVEL"}': {"f:value": {}}}}}}}
    assert _rendered(tree) == ["spec.containers[name=web].env[name=LOG_LEVEL].value"]


def test_an_item_whose_presence_is_owned_is_one_path() -> None:
    tree = {"f:env": {'k:{"name":"DEBUG_SQL"}': {".": {}, "f:name": {}, "f:value": {}}}}
    assert _rendered(tree) == ["env[name=DEBUG_SQL]"]


def test_keys_of_several_fields_are_sorted_and_typed() -> None:
    (path,) = paths({"f:ports": {'k:{"protocol":"TCP","containerPort":8080}': {"f:name": {}}}})
    assert path == (Field("ports"), Key((("containerPort", "8080"), ("protocol", '"TCP"'))), Field("name"))
    assert render(path) == "ports[containerPort=8080,protocol=TCP].name"


def test_set_items_by_value_and_list_items_by_index() -> None:
    tree = {"f:metadata": {"f:finalizers": {'v:"example.com/cleanup"': {}}}, "f:args": {"i:0": {}}}
    assert _rendered(tree) == ["metadata.finalizers[=example.com/cleanup]", "args[0]"]
    assert paths({"f:a": {"i:3": {}}})[0][-1] == Index(3)
    assert paths({"f:a": {"v:1": {}}})[0][-1] == Value("1")


def test_names_that_are_not_identifiers_are_quoted() -> None:
    tree = {"f:metadata": {"f:annotations": {"f:deployment.kubernetes.io/revision": {}}}}
    assert _rendered(tree) == ['metadata.annotations["deployment.kubernetes.io/revision"]']


def test_key_values_that_need_it_stay_json() -> None:
    assert _rendered({"f:e": {'k:{"name":"a,b"}': {"f:v": {}}}}) == ['e[name="a,b"].v']


@pytest.mark.parametrize(
    ("tree", "problem"),
    [
        ([], "not an object"),
        ({"x:y": {}}, "unknown key"),
        ({"f:a": []}, "is not an object"),
        ({"k:{not json": {}}, "does not hold JSON"),
        ({"k:[1]": {}}, "should hold a JSON object"),
        ({"k:{}": {}}, "should hold a JSON object"),
        ({"i:-1": {}}, "unknown key"),
        ({"f:" + "a" * MAX_KEY: {}}, f"longer than {MAX_KEY}"),
    ],
)
def test_hostile_trees_are_one_error(tree: Any, problem: str) -> None:
    with pytest.raises(FieldsError, match=problem):
        paths(tree)


def test_errors_never_quote_a_long_key() -> None:
    with pytest.raises(FieldsError) as caught:
        paths({"z:" + "s3cr3t" * 50: {}})
    assert "s3cr3t" * 8 not in caught.value.message


def test_depth_is_bounded() -> None:
    tree: dict[str, Any] = {}
    node = tree
    for _ in range(MAX_DEPTH + 2):
        node["f:a"] = {"f:b": {}}
        node = node["f:a"]
    with pytest.raises(FieldsError, match="nested deeper"):
        paths(tree)


def test_paths_are_bounded() -> None:
    with pytest.raises(FieldsError, match=f"more than {MAX_PATHS}"):
        paths({f"f:x{i}": {} for i in range(MAX_PATHS + 1)})


_LOG_LEVEL = 'k:{"name":"LOG_LEVEL"}'
LIVE = {
    "spec": {
        "replicas": 5,
        "containers": [
            {"name": "side", "env": []},
            {"name": "web", "env": [{"name": "LOG_LEVEL", "value": "debug"}], "args": ["--a", "--b"]},
        ],
        "ports": [{"containerPort": 8080, "protocol": "TCP", "name": "http"}],
        "finalizers": ["x", "y"],
        "flag": True,
    }
}


@pytest.mark.parametrize(
    ("tree", "value"),
    [
        ({"f:spec": {"f:replicas": {}}}, 5),
        ({"f:spec": {"f:containers": {'k:{"name":"web"}': {"f:env": {_LOG_LEVEL: {"f:value": {}}}}}}}, "debug"),
        ({"f:spec": {"f:containers": {'k:{"name":"web"}': {"f:args": {"i:1": {}}}}}}, "--b"),
        ({"f:spec": {"f:ports": {'k:{"containerPort":8080,"protocol":"TCP"}': {"f:name": {}}}}}, "http"),
        ({"f:spec": {"f:finalizers": {'v:"y"': {}}}}, "y"),
    ],
)
def test_resolve_finds_the_value(tree: dict[str, Any], value: Any) -> None:
    (path,) = paths(tree)
    assert resolve(LIVE, path) == (True, value)


@pytest.mark.parametrize(
    "tree",
    [
        {"f:spec": {"f:paused": {}}},
        {"f:spec": {"f:containers": {'k:{"name":"db"}': {"f:image": {}}}}},
        {"f:spec": {"f:containers": {'k:{"name":"web"}': {"f:args": {"i:9": {}}}}}},
        {"f:spec": {"f:replicas": {"f:deeper": {}}}},
        {"f:spec": {"f:replicas": {"i:0": {}}}},
        {"f:spec": {"f:flag": {}, "f:ports": {'k:{"containerPort":8080.5}': {"f:name": {}}}}},
    ],
)
def test_resolve_says_missing(tree: dict[str, Any]) -> None:
    assert resolve(LIVE, paths(tree)[-1]) == (False, None)


def test_booleans_are_not_numbers_when_matching() -> None:
    (path,) = paths({"f:l": {"v:1": {}}})
    assert resolve({"l": [True]}, path) == (False, None)
    assert resolve({"l": [1.0]}, path) == (True, 1.0)


def test_json_round_trip_of_keys() -> None:
    key = Key((("name", json.dumps("web")),))
    assert key.matches({"name": "web"}) and not key.matches({"name": "db"}) and not key.matches("web")
