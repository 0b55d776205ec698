"""Request parsing: every mistake is an InputError whose message names the field."""

from __future__ import annotations

import json

import pytest

from argocd_lifecycle.generators.service.errors import InputError
from argocd_lifecycle.generators.service.inputs import parse_request


def _request(parameters: object) -> bytes:
    return json.dumps({"applicationSetName": "a", "input": {"parameters": parameters}}).encode()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{", "request body: not valid JSON"),
        (b"\xff\xfe", "request body: not valid JSON"),
        (b"[]", "request body: expected a JSON object, got a list"),
        (b"{}", "applicationSetName: expected a string, got null"),
        (b'{"applicationSetName": 3}', "applicationSetName: expected a string, got a number"),
        (b'{"applicationSetName": "a", "input": []}', "input: expected an object, got a list"),
        (_request("x"), "input.parameters: expected an object, got a string"),
        (_request({"readyOnly": "yes"}), "input.parameters.readyOnly: expected true or false, got 'yes'"),
        (_request({"flatList": 1}), "input.parameters.flatList: expected true or false"),
        (_request({"names": "a"}), "input.parameters.names: expected a list of strings, got a string"),
        (_request({"names": ["a", 2]}), "input.parameters.names[1]: expected a string, got a number"),
        (_request({"phases": ["Ready", "Broken"]}), "input.parameters.phases[1]: 'Broken' is not a phase"),
        (_request({"minVersion": 1.29}), "input.parameters.minVersion: expected a version string"),
        (_request({"maxVersion": "latest"}), "input.parameters.maxVersion: 'latest' is not a Kubernetes version"),
        (_request({"labelSelector": []}), "input.parameters.labelSelector: expected an object, got a list"),
        (_request({"labelSelector": {"matchLabel": {}}}), "input.parameters.labelSelector: unknown field 'matchLabel'"),
        (
            _request({"labelSelector": {"matchLabels": {"env": 1}}}),
            "input.parameters.labelSelector.matchLabels.env: expected a string, got a number",
        ),
        (
            _request({"labelSelector": {"matchExpressions": [{"key": "env", "operator": "Gt", "values": ["1"]}]}}),
            "input.parameters.labelSelector.matchExpressions[0].operator: 'Gt' is not one of In, NotIn",
        ),
        (
            _request({"labelSelector": {"matchExpressions": [{"key": "env", "operator": "In"}]}}),
            "input.parameters.labelSelector.matchExpressions[0].values: must not be empty for operator In",
        ),
        (
            _request({"labelSelector": {"matchExpressions": [{"key": "e", "operator": "Exists", "values": ["x"]}]}}),
            "input.parameters.labelSelector.matchExpressions[0].values: must be empty for operator Exists",
        ),
        (
            _request({"labelSelector": {"matchLabels": []}}),
            "input.parameters.labelSelector.matchLabels: expected an object, got a list",
        ),
        (
            _request({"labelSelector": {"matchExpressions": [{"key": "k", "operator": "Exists", "values": {}}]}}),
            "input.parameters.labelSelector.matchExpressions[0].values: expected a list of strings",
        ),
        (
            _request({"labelSelector": {"matchExpressions": [{"key": "", "operator": "Exists"}]}}),
            "input.parameters.labelSelector.matchExpressions[0].key: expected a non-empty label key, got an empty",
        ),
        (
            _request({"labelSelector": {"matchExpressions": [{"operator": "Exists"}]}}),
            "input.parameters.labelSelector.matchExpressions[0].key: expected a non-empty label key, got null",
        ),
    ],
)
def test_bad_requests_name_the_field(body: bytes, message: str) -> None:
    with pytest.raises(InputError) as err:
        parse_request(body)
    assert err.value.status == 400
    assert err.value.message.startswith(message)


def test_null_means_not_set() -> None:
    body = _request(
        {"labelSelector": {"matchLabels": None, "matchExpressions": None}, "names": None, "readyOnly": None}
    )
    assert parse_request(body).input.ready_only is True
    assert parse_request(_request(None)).input.echo == {}


def test_argo_cd_request_without_parameters_and_defaults() -> None:
    request = parse_request(b'{"applicationSetName":"guestbook","input":{}}\n')
    assert request.appset == "guestbook"
    wanted = request.input
    assert (wanted.ready_only, wanted.drop_decommissioned, wanted.flat_list, wanted.allow_mass_drop) == (
        True,
        False,
        False,
        False,
    )
    assert wanted.echo == {}


def test_answer_keys_are_canonical_and_name_every_parameter() -> None:
    a = parse_request(_request({"names": ["x"], "readyOnly": True}))
    b = parse_request(b'{"applicationSetName":"a","input":{"parameters":{"readyOnly":true,"names":["x"]}}}')
    c = parse_request(_request({"names": ["x"], "readyOnly": True, "allowMassDrop": True}))
    assert a.answer_key == b.answer_key
    assert a.answer_key != c.answer_key
    assert c.input.allow_mass_drop is True
