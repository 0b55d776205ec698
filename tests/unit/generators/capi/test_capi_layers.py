"""The Cluster API source builds on the fleet engine and nothing else of generators: not the HTTP service,
not the serve wiring (which imports it only when --capi is on); the fleet never imports it."""

from __future__ import annotations

import pytest

from tests.unit.generators.test_generators_subpackages import GRAPH, PACKAGE, _inside

CAPI = sorted(m for m in GRAPH if _inside(m, "capi"))


@pytest.mark.parametrize("module", CAPI)
def test_capi_imports_only_itself_and_the_fleet(module: str) -> None:
    assert sorted(m for m in GRAPH[module] if not _inside(m, "capi") and not _inside(m, "fleet")) == []


def test_the_checks_see_the_capi_modules() -> None:
    assert f"{PACKAGE}.capi.reconciler" in CAPI
    assert f"{PACKAGE}.fleet.list_watch" in GRAPH[f"{PACKAGE}.capi.source"]
