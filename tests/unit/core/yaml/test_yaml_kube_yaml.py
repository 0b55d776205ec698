"""Kubernetes' scalar rules (go-yaml v2 as sigs.k8s.io/yaml uses it), case by case; the integration tier
checks the same rules against the real decoder."""

from __future__ import annotations

import math
from typing import Any

import pytest

from argocd_lifecycle.yaml import kube_yaml as k

CASES: list[tuple[str, str, Any]] = [
    ("y", k.BOOL, True),
    ("N", k.BOOL, False),
    ("on", k.BOOL, True),
    ("tRue", k.STR, "tRue"),
    ("~", k.NULL, None),
    ("", k.NULL, None),
    ("12:30", k.STR, "12:30"),
    ("2024-01-02", k.STR, "2024-01-02"),
    ("1e3", k.FLOAT, 1000.0),
    ("3141e59", k.FLOAT, 3.141e62),
    ("1e400", k.STR, "1e400"),
    ("1.", k.FLOAT, 1.0),
    (".5_5", k.FLOAT, 0.55),
    ("._5", k.STR, "._5"),
    ("08", k.FLOAT, 8.0),
    ("0755", k.INT, 493),
    ("0o14", k.INT, 12),
    ("0X1F", k.INT, 31),
    ("-0b101", k.INT, -5),
    ("1__0", k.INT, 10),
    ("_1", k.STR, "_1"),
    ("18446744073709551615", k.INT, (1 << 64) - 1),
    ("+18446744073709551615", k.FLOAT, 1.8446744073709552e19),
    ("0x1FFFFFFFFFFFFFFFF", k.STR, "0x1FFFFFFFFFFFFFFFF"),
    ("-9223372036854775809", k.FLOAT, -9.223372036854776e18),
    ("-.inf", k.FLOAT, -math.inf),
    ("-.nan", k.STR, "-.nan"),
    ("=", k.STR, "="),
]


@pytest.mark.parametrize(("text", "tag", "value"), CASES, ids=[c[0] or "empty" for c in CASES])
def test_plain_scalars_resolve_as_go_yaml_does(text: str, tag: str, value: Any) -> None:
    assert k.resolve_plain(text) == (tag, value)
    assert k.is_plain_string(text) is (tag == k.STR)


def test_explicit_tags() -> None:
    assert k.resolve_tagged(k.FLOAT, "1") == 1.0 and isinstance(k.resolve_tagged(k.FLOAT, "1"), float)
    assert k.resolve_tagged(k.INT, "0x10") == 16
    assert k.resolve_tagged(k.STR, "1e3") == "1e3"
    assert k.resolve_tagged(k.TIMESTAMP, "2024-01-02") == "2024-01-02"
    with pytest.raises(k.TagMismatch, match="cannot decode str `abc` as a !!int"):
        k.resolve_tagged(k.INT, "abc")
    with pytest.raises(k.TagMismatch):
        k.resolve_tagged(k.INT, "1e3")
