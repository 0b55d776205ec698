"""JSON bodies: nesting deeper than the limit is refused before parsing (400, never a RecursionError),
in agreement with the real nesting depth for any document, strings and escapes included."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argocd_lifecycle.http.errors import HttpError
from argocd_lifecycle.http.json_body import check_depth, parse_json, too_deep


def depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    return 0


def nested(levels: int) -> bytes:
    return (
        b'{"a": ' * (levels // 2)
        + b"[" * (levels - levels // 2)
        + b"1"
        + b"]" * (levels - levels // 2)
        + b"}" * (levels // 2)
    )


@pytest.mark.parametrize("levels", [0, 1, 2, 31, 32])
def test_up_to_the_limit_is_accepted(levels: int) -> None:
    assert depth(parse_json(nested(levels))) == levels


@pytest.mark.parametrize("levels", [33, 1000, 200_000])
def test_deeper_is_400_before_anything_is_parsed(levels: int) -> None:
    with pytest.raises(HttpError) as info:
        parse_json(nested(levels))
    assert (info.value.status, info.value.reason) == (400, "too_deep")
    assert info.value.message == "request body: JSON nested deeper than 32 levels"


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"a": "[[[[{{{{" * 100, "b": ['\\"[[[[' * 50]}).encode()
    assert not too_deep(text)
    check_depth(text)


def test_the_limit_is_a_parameter() -> None:
    assert too_deep(nested(4), 3) and not too_deep(nested(3), 3)


def test_malformed_json_is_400_naming_line_and_column() -> None:
    with pytest.raises(HttpError) as info:
        parse_json(b'{"a": [1,\n 2,, 3]}')
    assert (info.value.status, info.value.reason) == (400, "bad_json")
    assert info.value.message == "request body: not valid JSON (Expecting value: line 2 column 4 (char 13))"
    with pytest.raises(HttpError, match="not valid JSON"):
        parse_json(b"\xff\xfe")


def test_deep_text_that_slips_past_the_check_is_still_400() -> None:
    # an unterminated string hides the brackets from the check; json.loads then recurses
    with pytest.raises(HttpError) as info:
        parse_json(b'"' + b"[" * 100_000)
    assert info.value.status == 400


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab', max_size=6),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(alphabet="[]{}k", max_size=3), children),
    max_leaves=60,
)


@settings(max_examples=300, deadline=None)
@given(json_values, st.integers(min_value=1, max_value=6))
def test_agrees_with_the_real_depth(value: Any, limit: int) -> None:
    raw = json.dumps(value).encode()
    assert too_deep(raw, limit) == (depth(value) > limit)
