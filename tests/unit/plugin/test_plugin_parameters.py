"""Parameters (plugin/parameters.py): Argo CD's JSON wire format, and the typed values checked once."""

from __future__ import annotations

import dataclasses
import re

import pytest

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.plugin.parameters import MAX_VALUES_DEPTH, SPECS, Parameters, ParamValue, parse_parameters
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved


@pytest.mark.parametrize("raw", [None, "", "null", "  null  ", "[]"])
def test_absent_or_null_parameters(raw: str | None) -> None:
    assert parse_parameters(raw) == {}


def test_parameters_of_every_shape() -> None:
    raw = '[{"name":"vals","array":["a.yaml"]},{"name":"set","map":{"image.tag":"v1"}},{"name":"mode","string":"prod"}]'
    assert parse_parameters(raw) == {"vals": ["a.yaml"], "set": {"image.tag": "v1"}, "mode": "prod"}


def test_defaults_come_from_the_announced_table() -> None:
    params = Parameters.parse({})
    assert params == Parameters(
        allow_empty=False,
        hpa_aware_replicas=True,
        on_removed=OnRemoved.FAIL,
        rewrite_apis=True,
        validate=False,
        additional_versions=None,
        release_name=None,
        value_files=(),
        values=(),
        enable_helm=False,
        allow_remote_bases=False,
        max_output_bytes=64 * 1024 * 1024,
    )
    # every announced parameter has its typed field, and every field is announced
    assert [s.field for s in SPECS] == [f.name for f in dataclasses.fields(Parameters)]


def test_every_parameter_is_typed() -> None:
    raw: dict[str, ParamValue] = {
        "allowEmpty": " TRUE ",
        "hpaAwareReplicas": "false",
        "onRemoved": "Drop",
        "rewriteApis": "false",
        "validate": "true",
        "additionalVersions": "rules/x.yaml",
        "releaseName": "shop",
        "valueFiles": "a.yaml, b.yaml,",  # the UI's single-line form of an array
        "values": {"z": "1", "a": "2"},
        "enableHelm": "true",
        "myOwnParameter": "left to templates",
    }
    params = Parameters.parse(raw)
    assert (params.allow_empty, params.hpa_aware_replicas, params.rewrite_apis, params.validate) == (
        True,
        False,
        False,
        True,
    )
    assert params.on_removed is OnRemoved.DROP and params.enable_helm is True
    assert (params.additional_versions, params.release_name) == ("rules/x.yaml", "shop")
    assert params.value_files == ("a.yaml", "b.yaml")
    assert params.values == (("a", "2"), ("z", "1"))  # sorted: the helm argv does not depend on input order
    assert Parameters.parse({"valueFiles": ["c.yaml"], "releaseName": ""}).value_files == ("c.yaml",)
    assert Parameters.parse({"releaseName": ""}).release_name is None  # empty means unset


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"allowEmpty": "banana"}, "parameter allowEmpty: expected true or false, got 'banana'"),
        ({"hpaAwareReplicas": ["true"]}, "parameter hpaAwareReplicas: expected true or false, got ['true']"),
        ({"rewriteApis": ""}, "parameter rewriteApis: expected true or false, got ''"),
        ({"validate": {"a": "b"}}, "parameter validate: expected true or false, got {'a': 'b'}"),
        ({"enableHelm": "yes"}, "parameter enableHelm: expected true or false, got 'yes'"),
        ({"onRemoved": "shrug"}, "parameter onRemoved: expected fail, drop or keep, got 'shrug'"),
        ({"onRemoved": ["drop"]}, "parameter onRemoved: expected a string"),
        ({"releaseName": ["a", "b"]}, "parameter releaseName: expected a string"),
        ({"additionalVersions": {"a": "b"}}, "parameter additionalVersions: expected a string"),
        ({"valueFiles": {"a": "b"}}, "parameter valueFiles: expected an array"),
        ({"values": "a=b"}, "parameter values: expected a map"),
        ({"values": ["a=b"]}, "parameter values: expected a map"),
    ],
)
def test_a_bad_parameter_is_one_line_naming_it_and_the_rule(raw: dict[str, ParamValue], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        Parameters.parse(raw)
    assert caught.value.lines() == [message]


@pytest.mark.parametrize("name", ["shop", "shop-1", "a.b", "a" * 53, "0day"])
def test_release_names_helm_accepts(name: str) -> None:
    assert Parameters.parse({"releaseName": name}).release_name == name


@pytest.mark.parametrize(
    "name", ["--post-renderer=x", "-x", "Shop", "a_b", "a" * 54, "a.", ".a", "a..b", "ü", "a b", "a\nb"]
)
def test_release_names_helm_refuses_are_refused_here(name: str) -> None:
    with pytest.raises(UsageError, match=r"^parameter releaseName: .* is not a Helm release name"):
        Parameters.parse({"releaseName": name})


@pytest.mark.parametrize(("raw", "size"), [("64Mi", 64 << 20), ("100Ki", 100 << 10), ("1", 1), (" 2048 ", 2048)])
def test_max_output_bytes(raw: str, size: int) -> None:
    assert Parameters.parse({"maxOutputBytes": raw}).max_output_bytes == size


@pytest.mark.parametrize("raw", ["0", "65Mi", "1Gi", "-1", "lots", "1.5Mi"])
def test_max_output_bytes_may_only_lower_the_cap(raw: str) -> None:
    with pytest.raises(UsageError, match=r"^parameter maxOutputBytes: expected a size from 1 to 64Mi"):
        Parameters.parse({"maxOutputBytes": raw})


def test_values_are_dotted_paths_and_keep_every_character() -> None:
    params = Parameters.parse({"values": {"a.b": "1", "a\\.b": "2", "x=1,y": "{p,q}", "n": "null"}})
    assert params.values_document() == {"a": {"b": "1"}, "a.b": "2", "x=1,y": "{p,q}", "n": "null"}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"a": "1", "a.b": "2"}, "'a.b' goes below 'a', which has a value"),
        ({"a..b": "1"}, "'a..b': empty key or level"),
        ({"list[0]": "1"}, "'list[0]': list indexes are not supported"),
    ],
)
def test_values_keys_that_cannot_be_written(values: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(f"parameter values: {message}")):
        Parameters.parse({"values": dict(values)})


def test_wire_values_must_be_scalars() -> None:
    assert parse_parameters('[{"name": "x", "string": true}, {"name": "n", "array": [1, 2.5]}]') == {
        "x": "true",
        "n": ["1", "2.5"],
    }
    with pytest.raises(
        UsageError, match=r"^ARGOCD_APP_PARAMETERS\[0\] \(v\)\.map\['k'\]: expected a string, got dict$"
    ):
        parse_parameters('[{"name": "v", "map": {"k": {"deep": 1}}}]')
    with pytest.raises(UsageError, match=r"^ARGOCD_APP_PARAMETERS: refused: JSON nested too deeply$"):
        parse_parameters("[" * 100_000 + "]" * 100_000)


def test_values_may_nest_lists_and_maps_as_values_object_does() -> None:
    tree = {"requests": {"cpu": "100m", "memory": None}, "ports": [80, 443.5, True, {"name": "http"}]}
    params = Parameters.parse({"values": {"resources": tree, "image.tag": "1.2", "hosts": ["a", "b"]}})
    assert params.values_document() == {"resources": tree, "image": {"tag": "1.2"}, "hosts": ["a", "b"]}
    # keys inside a map given as a value are its own: no dotted paths there
    assert Parameters.parse({"values": {"a": {"b.c": 1}}}).values_document() == {"a": {"b.c": 1}}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        # a dotted key below a map given as a value would merge into it: refused, either way round
        ({"a": {"b": 1}, "a.c": 2}, "'a.c' goes below 'a', which has a value"),
        ({"a": [1], "a.b": 2}, "'a.b' goes below 'a', which has a value"),
        ({"a": {1: "x"}}, "'a': the key '1' is not a string (quote it)"),
        ({"a": {"b": [{True: "x"}]}}, "'a' at .b[0]: the key 'True' is not a string"),
        ({"a": [float("nan")]}, "'a' at [0]: not a number helm can read"),
        ({"a": {"b": float("inf")}}, "'a' at .b: not a number helm can read"),
        ({"a": {"b": b"bytes"}}, "'a' at .b: expected a string, number, boolean, null, list or map, got bytes"),
        ({"a": {"b": {1, 2}}}, "'a' at .b: expected a string, number, boolean, null, list or map, got set"),
    ],
)
def test_nested_values_helm_could_not_read_as_given(values: dict[str, ParamValue], message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(f"parameter values: {message}")):
        Parameters.parse({"values": values})


def test_nested_values_are_bounded_in_depth_and_size() -> None:
    deep: object = "leaf"
    for _ in range(MAX_VALUES_DEPTH - 1):
        deep = {"k": deep}
    assert Parameters.parse({"values": {"a": deep}})  # type: ignore[dict-item]
    with pytest.raises(UsageError, match=f"nest deeper than {MAX_VALUES_DEPTH} levels"):
        Parameters.parse({"values": {"a.b": deep}})  # type: ignore[dict-item]  # the dotted level counts
    big = ["x" * 1024] * 1100  # one string many times (a YAML alias): stopped as soon as it is over
    with pytest.raises(UsageError, match=r"^parameter values: refused: more than 1 MiB as JSON \(put large"):
        Parameters.parse({"values": {"a": big}})  # type: ignore[dict-item]
    many = {f"k{i}": "x" * 600 for i in range(2000)}
    with pytest.raises(UsageError, match="more than 1 MiB"):
        Parameters.parse({"values": many})
    assert Parameters.parse({"values": {"a": ["x" * 1024] * 900}})
