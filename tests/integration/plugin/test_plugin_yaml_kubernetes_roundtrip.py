"""Our YAML means what Kubernetes reads: every scalar core/yamlio loads has the type and value that
sigs.k8s.io/yaml (Argo CD v3.2.11's pin, through the real decoder in the yamlcheck harness) gives it, and
every object yamlio writes reads back in Go as exactly that object. Any type difference fails."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argocd_lifecycle.yaml import yamlio
from tests.integration.plugin.kube_decoder import from_python, kubernetes_reads

#: scalars whose meaning differs between YAML 1.1 (PyYAML) and Kubernetes, or that sit on a boundary
TRICKY = [
    *("y", "Y", "n", "N", "yes", "No", "on", "OFF", "true", "False", "t", "f", "~", "null", "NULL", ""),
    *("12:30", "1:20:30", "2024-01-02", "2024-01-02T03:04:05Z", "2024-13-45", "=", "<<x"),
    *("1e3", "1E3", "3141e59", "1e400", "1e-400", ".5", ".5_5", "._5", "1.", "1.e5", "+.5", "1_0.5"),
    *("0o14", "0O14", "0x1F", "0X1F", "0b101", "0B101", "-0b101", "0755", "08", "019", "0_7", "+12"),
    *("9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551615"),
    *("18446744073709551616", "+18446744073709551615", "0x1FFFFFFFFFFFFFFFF", "99999999999999999999"),
    *(".inf", "-.Inf", "+.INF", ".nan", ".NaN", "-.nan", "inf", "nan", "1_000", "1__0", "_1", "1_"),
]
#: plain scalars from the characters that decide a scalar's type
PLAIN = st.text(alphabet="0123456789_.+-:eExXoObByYnN~", min_size=1, max_size=10).filter(
    lambda s: s[0] not in "-:" and ": " not in s and not s.endswith(":")
)
NUMBERISH = st.from_regex(r"[-+]?(0[xXoObB])?[0-9a-fA-F_]{1,20}(\.[0-9_]{0,4})?([eE][-+]?[0-9_]{1,3})?", fullmatch=True)
KEYS = st.text(alphabet=string.ascii_letters, min_size=1, max_size=8)


def _document(entries: list[tuple[str, str]], flow: bool) -> str:
    if flow:
        return "{" + ", ".join(f"{k}: {v}" for k, v in entries) + "}\n"
    return "".join(f"{k}: {v}\n" for k, v in entries) + "list:\n" + "".join(f"- {v}\n" for _, v in entries)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.lists(st.tuples(KEYS, st.one_of(st.sampled_from(TRICKY), PLAIN, NUMBERISH)), min_size=1, max_size=12),
        min_size=1,
        max_size=3,
    ),
    st.booleans(),
)
def test_plain_scalars_load_as_kubernetes_reads_them(docs: list[list[tuple[str, str]]], flow: bool) -> None:
    text = "---\n".join(_document([(k, v) for k, v in entries if v], flow) for entries in docs)
    go = kubernetes_reads(text)
    ours = [d for d in yamlio.load_all(text) if d is not None]
    assert [from_python(d) for d in ours] == go.documents


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(TRICKY), st.sampled_from(TRICKY)), min_size=1, max_size=20))
def test_tricky_keys_load_as_kubernetes_reads_them(pairs: list[tuple[str, str]]) -> None:
    text = "".join(f"k{i}{key}: {value}\n" for i, (key, value) in enumerate(pairs) if key and value)
    text += "".join(f"{key}: x\n" for key, _ in pairs[:1] if key and key not in ("<<x",))
    if not text:
        return
    assert [from_python(yamlio.load(text))] == kubernetes_reads(text).documents


# what a transform may put into an object: strings of any kind, numbers in Go's ranges, nesting
STRINGS = st.one_of(
    st.sampled_from(TRICKY),
    PLAIN,
    NUMBERISH,
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=16),
    st.text(alphabet=" \t\n#:-'\"[]{},&*!|>%@`?\\", max_size=8),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(1 << 63), max_value=(1 << 64) - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    STRINGS,
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(STRINGS, inner, max_size=5),
    max_leaves=40,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.dictionaries(STRINGS, VALUES, min_size=1, max_size=6), min_size=1, max_size=3))
def test_what_we_write_reads_back_in_kubernetes_as_written(docs: list[dict[str, Any]]) -> None:
    text = yamlio.dump_all(docs)
    go = kubernetes_reads(text)
    assert go.error is None, go.error
    assert go.documents == [from_python(d) for d in docs]


def test_the_values_that_broke_real_charts() -> None:
    """A short git SHA, a scientific-looking id, an octal-looking and a y/n value, and a time of day."""
    obj = {"labels": {"rev": "3141e59", "id": "1e3", "mode": "0o14", "flag": "y", "no": "n"}, "start": "12:30"}
    text = yamlio.dump(obj)
    assert kubernetes_reads(text).json == [obj]
    assert yamlio.load("start: 12:30\nrev: 3141e59\n") == {"start": "12:30", "rev": 3.141e62}
