"""Parameters (plugin/parameters.py): Argo CD's JSON wire format, and the typed values checked once."""

from __future__ import annotations

import pytest

from argocd_lifecycle.plugin.parameters import parse_parameters


@pytest.mark.parametrize("raw", [None, "", "null", "  null  ", "[]"])
def test_absent_or_null_parameters(raw: str | None) -> None:
    assert parse_parameters(raw) == {}


def test_parameters_of_every_shape() -> None:
    raw = '[{"name":"vals","array":["a.yaml"]},{"name":"set","map":{"image.tag":"v1"}},{"name":"mode","string":"prod"}]'
    assert parse_parameters(raw) == {"vals": ["a.yaml"], "set": {"image.tag": "v1"}, "mode": "prod"}
