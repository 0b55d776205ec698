"""The fast paths in yamlio must be invisible: same objects as CSafeLoader, same text as CSafeDumper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from argocd_lifecycle import yamlio
from tests.conftest import REPO


class _StockNoAlias(yaml.CSafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def stock_dump(docs: list[Any]) -> str:
    return yaml.dump_all(
        docs,
        Dumper=_StockNoAlias,
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
numbers: [0755, 0x1f, 1_000, 1e3, 1.5e3, .inf, -.inf, .nan, 12:30:00, +12]
strings: ['0755', "on", '', "multi\\nline", "tab\\there", "\\u2028"]
nested: [[1, [2, [3]]], {k: {k: {k: v}}}]
set: !!set {a, b}
omap: !!omap [{a: 1}, {b: 2}]
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
        stock = list(yaml.load_all(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        with pytest.raises(yaml.YAMLError):
            list(yamlio.load_all(text))
        return
    fast = list(yamlio.load_all(text))
    assert _same(fast, stock)
    assert yamlio.dump_all(fast) == stock_dump(stock)


def test_tricky_yaml_is_identical() -> None:
    stock = yaml.load(TRICKY, Loader=yaml.CSafeLoader)
    fast = yamlio.load(TRICKY)
    assert _same(fast, stock)
    assert fast["shared"] is fast["base"]  # aliases still share one object
    assert yamlio.dump_all([fast]) == stock_dump([stock])


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["yes", "on", "0755", "1e3", "null", "~", "12:30", "2024-01-02", "- x", ": y"]),
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
    assert _same(list(yamlio.load_all(text)), list(yaml.load_all(text, Loader=yaml.CSafeLoader)))


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
