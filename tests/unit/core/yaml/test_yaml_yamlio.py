"""The fast paths in yamlio must be invisible: the same objects as PyYAML's own constructor and the same
text as PyYAML's own representer, both with Kubernetes' scalar rules (core/yaml/kube_yaml.py)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from argocd_lifecycle.yaml import kube_yaml, yamlio
from tests.conftest import REPO


class _StockLoader(kube_yaml.LoadResolver, yaml.CSafeLoader):
    """PyYAML's constructor, no fast path, Kubernetes' scalars."""


kube_yaml.install_constructors(_StockLoader)


class _StockDumper(kube_yaml.DumpResolver, yaml.CSafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def stock_load_all(text: str) -> list[Any]:
    return list(yaml.load_all(text, Loader=_StockLoader))


def stock_dump(docs: list[Any]) -> str:
    return yaml.dump_all(
        docs,
        Dumper=_StockDumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        explicit_start=True,
        width=1 << 30,
    )


TRICKY = """
base: &base {a: 1, b: [x, y]}
merged: {<<: *base, c: 3}
shared: *base
tags: !!str 123
binary: !!binary aGVsbG8=
when: 2024-01-02T03:04:05Z
day: 2024-01-02
yes_no: [yes, no, on, off, y, n, ~, null, Null]
numbers: [0755, 0x1f, 1_000, 1e3, 1.5e3, .inf, -.inf, .nan, 12:30:00, +12, 0o14, 08]
strings: ['0755', "on", '', "multi\\nline", "tab\\there", "\\u2028"]
nested: [[1, [2, [3]]], {k: {k: {k: v}}}]
set: !!set {a, b}
omap: !!omap [{a: 1}, {b: 2}]
value: =
"""


def corpus() -> list[Path]:
    files = [
        *REPO.glob("examples/**/*.yaml"),
        *REPO.glob("tests/fixtures/**/*.yaml"),
        *REPO.glob("core/deprecations/*.yaml"),
    ]
    return sorted(p for p in files if p.is_file())


def _same(a: Any, b: Any) -> bool:
    # NaN never equals itself; compare through its text form
    return bool(repr(a) == repr(b))


@pytest.mark.parametrize("path", corpus(), ids=lambda p: str(p.relative_to(REPO)))
def test_loader_matches_stock_on_repository_yaml(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        stock = stock_load_all(text)
    except yaml.YAMLError:
        with pytest.raises(yaml.YAMLError):
            list(yamlio.load_all(text))
        return
    fast = list(yamlio.load_all(text))
    assert _same(fast, stock)
    assert yamlio.dump_all(fast) == stock_dump(stock)


def test_tricky_yaml_is_identical() -> None:
    stock = yaml.load(TRICKY, Loader=_StockLoader)
    fast = yamlio.load(TRICKY)
    assert _same(fast, stock)
    assert fast["shared"] is fast["base"]  # aliases still share one object
    assert yamlio.dump_all([fast]) == stock_dump([stock])


def test_tricky_yaml_means_what_it_means_to_kubernetes() -> None:
    doc = yamlio.load(TRICKY)
    assert doc["merged"] == {"a": 1, "b": ["x", True], "c": 3}  # `y` is a boolean to Kubernetes
    assert doc["binary"] == "hello"  # the decoded bytes as text, as go-yaml gives them
    assert doc["when"] == "2024-01-02T03:04:05Z" and doc["day"] == "2024-01-02"  # timestamps stay strings
    assert doc["yes_no"] == [True, False, True, False, True, False, None, None, None]
    numbers = doc["numbers"]
    assert numbers[:6] == [493, 31, 1000, 1000.0, 1500.0, math.inf] and math.isnan(numbers[7])
    assert numbers[8:] == ["12:30:00", 12, 12, 8.0]
    assert doc["set"] == {"a": None, "b": None} and doc["omap"] == [{"a": 1}, {"b": 2}]
    assert doc["value"] == "="


def test_unknown_tags_are_refused_and_long_numbers_stay_text() -> None:
    with pytest.raises(yaml.constructor.ConstructorError, match="could not determine a constructor"):
        yamlio.load("a: !!python/object/apply:os.system [true]\n")
    # past 64 bits (and past Python's digit limit) a decimal is a float, or text when even that overflows
    assert yamlio.load("a: " + "9" * 5000) == {"a": "9" * 5000}


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(1 << 63), max_value=(1 << 64) - 1),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["yes", "on", "y", "N", "0755", "1e3", "08", "0o14", "null", "~", "12:30", "2024-01-02", "- x"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(values, min_size=1, max_size=3))
def test_round_trip_matches_stock(docs: list[Any]) -> None:
    text = yamlio.dump_all(docs)
    assert text == stock_dump(docs)
    loaded = list(yamlio.load_all(text))
    assert _same(loaded, stock_load_all(text))
    assert _same(loaded, docs)  # what was written reads back as itself


def test_unhashable_key_raises_the_stock_error() -> None:
    with pytest.raises(yaml.constructor.ConstructorError, match="unhashable key"):
        yamlio.load("? [a, b]\n: c\n")


def _error(text: str) -> yaml.YAMLError:
    with pytest.raises(yaml.YAMLError) as caught:
        list(yamlio.load_all(text))
    return caught.value


def test_syntax_error_names_the_place_and_the_problem() -> None:
    flow = _error("a: 1\nb: [1, 2\n")
    assert yamlio.syntax_error("f.yaml", flow) == (
        "f.yaml:3:1: YAML syntax error: while parsing a flow sequence: did not find expected ',' or ']'"
    )
    # the short form scan and convert print: the bare problem
    assert yamlio.syntax_error("f.yaml", flow, context=False) == (
        "f.yaml:3:1: YAML syntax error: did not find expected ',' or ']'"
    )
    indent = _error("apiVersion: v1\n kind: x\n")
    assert yamlio.syntax_error("g.yaml#0", indent) == (
        "g.yaml#0:2:6: YAML syntax error: mapping values are not allowed in this context"
    )


def test_syntax_error_without_a_position() -> None:
    assert yamlio.syntax_error("h.yaml", yaml.YAMLError("broken\nsecond line")) == "h.yaml: YAML syntax error: broken"
