"""The removed-API policy values (plugin/rewrite/policy.py)."""

from __future__ import annotations

import pytest

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved


def test_on_removed_parses_case_insensitively() -> None:
    assert OnRemoved.parse(" Drop ") is OnRemoved.DROP
    with pytest.raises(UsageError, match="parameter onRemoved: expected fail, drop or keep, got 'explode'"):
        OnRemoved.parse("explode", where="parameter onRemoved")
