"""Inside generators: the service reads the fleet only through its contract (fleet/view.py) and the rollout
only through its pure parts (never its keeper), the fleet never imports the service or the serve wiring,
and no generators module imports itself back through another."""

from __future__ import annotations

import pytest

from tests.unit.test_layers import MODULES as ALL_MODULES
from tests.unit.test_layers import cycles, import_graph

PACKAGE = "argocd_lifecycle.generators"
MODULES = {m: p for m, p in ALL_MODULES.items() if m == PACKAGE or m.startswith(PACKAGE + ".")}
GRAPH = import_graph(MODULES)


def _inside(module: str, subpackage: str) -> bool:
    return module == f"{PACKAGE}.{subpackage}" or module.startswith(f"{PACKAGE}.{subpackage}.")


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _inside(m, "fleet")))
def test_the_fleet_imports_only_itself(module: str) -> None:
    assert sorted(m for m in GRAPH[module] if not _inside(m, "fleet")) == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _inside(m, "service")))
def test_the_service_reads_the_fleet_only_through_its_contract(module: str) -> None:
    allowed = {f"{PACKAGE}.fleet", f"{PACKAGE}.fleet.view", f"{PACKAGE}.rollout"}
    allowed |= {f"{PACKAGE}.rollout.{m}" for m in ("errors", "spec", "machine", "state", "summary", "windows")}
    assert sorted(m for m in GRAPH[module] if not _inside(m, "service") and m not in allowed) == []


def test_no_import_cycles() -> None:
    assert cycles(GRAPH) == []


def test_the_checks_see_the_imports() -> None:
    # guards against a check that passes because it reads nothing
    assert f"{PACKAGE}.fleet.view" in GRAPH[f"{PACKAGE}.service.answers"]
    assert f"{PACKAGE}.fleet.upgrade" in GRAPH[f"{PACKAGE}.fleet.lifecycle"]
    assert f"{PACKAGE}.runner" in GRAPH[f"{PACKAGE}.cli"]
