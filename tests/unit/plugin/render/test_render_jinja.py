"""The Jinja2 sandbox (plugin/render/jinja.py): template text versus data, the one escape hatch, and the
bounds on time, ranges and sizes."""

from __future__ import annotations

from typing import Any

import pytest

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.render.jinja import MAX_TEXT, JinjaRenderer
from argocd_lifecycle.plugin.render.jinja_values import load_rendered
from argocd_lifecycle.yaml.yamlio import DEFAULT_LIMITS

EVIL = "a\nkind: Secret"


def render(template: str, time_limit: float = 10.0, **context: Any) -> Any:
    renderer = JinjaRenderer(context, max_output=1 << 20, time_limit=time_limit)
    text, slots = renderer.render(template, "t.yaml.j2")
    return load_rendered(text, "t.yaml.j2", slots, DEFAULT_LIMITS, None)


def refused(template: str, time_limit: float = 10.0, **context: Any) -> str:
    with pytest.raises(RenderError) as caught:
        render(template, time_limit, **context)
    return caught.value.message


@pytest.mark.parametrize(
    "expression",
    [
        "v",
        "v | replace('x', 'y')",
        "'pre-' ~ v",
        "'pre-' + v",
        "'%s' | format(v)",
        "'%s' % v",
        "'{}'.format(v)",
        "[v, 'b'] | join(', ')",
        "', '.join([v])",
        "v | e",
        "v | tojson",
        "v | indent(2)",
    ],
)
def test_every_operation_on_data_prints_one_scalar(expression: str) -> None:
    docs = render("k: {{ " + expression + " }}\n", v=EVIL)
    assert len(docs) == 1 and list(docs[0]) == ["k"] and isinstance(docs[0]["k"], str)
    assert "a" in docs[0]["k"] and "Secret" in docs[0]["k"]


def test_template_text_stays_yaml() -> None:
    template = (
        "{% macro pair(k) %}{{ k }}: 1\n{% endmacro %}{{ pair('a') }}{{ 'b: 2' }}\n{% set c %}c: 3{% endset %}{{ c }}\n"
    )
    assert render(template) == [{"a": 1, "b": 2, "c": 3}]


def test_safe_is_the_escape_hatch_for_raw_text() -> None:
    assert render("{{ v | safe }}\n", v="a: 1\nb: 2") == [{"a": 1, "b": 2}]


def test_a_plain_value_is_typed_like_a_yaml_scalar_and_a_quoted_one_stays_text() -> None:
    docs = render("num: {{ v }}\nq: '{{ v }}'\nb: {{ t }}\nl: |\n  {{ v }} {{ t }}\n", v="3", t="true")
    assert docs == [{"num": 3, "q": "3", "b": True, "l": "3 true\n"}]


def test_an_explicit_tag_in_the_template_wins() -> None:
    assert render("num: !!str {{ v }}\n", v="3") == [{"num": "3"}]


def test_a_list_printed_whole_is_refused() -> None:
    assert "printed a list: a value prints as one scalar" in refused("k: {{ v }}\n", v=["a"])


def test_a_value_cannot_reach_yaml_syntax_outside_a_scalar() -> None:
    assert refused("k: !{{ v }} x\n", v="str").startswith("t.yaml.j2:1:5: YAML syntax error: while scanning a tag")
    cut = "{% set s %}{{ v }}{% endset %}k: {{ s[:2] }}\n"
    assert refused(cut, v="x") == "t.yaml.j2: a printed value was cut apart by a filter, or printed with |safe"
    assert "holds characters U+E000..U+E01F" in refused("k: \ue000\n")


def test_data_compares_as_data() -> None:
    assert render("k: {{ 'same' if ('pre-' ~ v) == 'pre-x' else 'other' }}\n", v="x") == [{"k": "same"}]


def test_the_time_limit_covers_a_loop_that_calls_nothing() -> None:
    message = refused("{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}", time_limit=0.2, s="x" * 100_000)
    assert message == "t.yaml.j2: Jinja2 render stopped: the templates took more than 0.2s"


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("{{ 'x' * " + str(MAX_TEXT + 1) + " }}", "repeating a string"),
        ("{{ [0] * 100001 }}", "repeating a list"),
        ("{% for i in range(1000) %}{% for j in range(1001) %}{% endfor %}{% endfor %}", "range() makes more than"),
        ("{{ range(100001) | list }}", "Range too big"),
        ("{{ 'x' | center(" + str(MAX_TEXT + 1) + ") }}", "center(): a size over"),
        ("{{ ('x' * 1000) | indent(" + str(MAX_TEXT) + ") }}", "indent would make a string over"),
        ("{{ ('ab' * 1000) | replace('a', 'x' * 5000) }}", "replace would make a string over"),
        ("{{ (['x' * 100000] * 100) | join('-') }}", "join would make a string over"),
        ("{{ [1] | batch(1000000, 0) | list }}", "batch(): more than"),
        ("{{ '%099999999d' % 1 }}", "a field width over"),
        ("{{ '{:099999999}'.format(1) }}", "str.format(): a field width over"),
        ("{{ 'a'.translate({}) }}", "str.translate() is not available"),
        ("{{ 7 ** 100000 }}", "a power over"),
        ("{{ lipsum(1000000) }}", "'lipsum' is undefined"),
        ("{{ v | urlize }}", "No filter named 'urlize'"),
    ],
)
def test_bounds(template: str, message: str) -> None:
    assert message in refused(template, v="x")
