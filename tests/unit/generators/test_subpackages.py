"""Inside generators: the service reads the fleet only through its contract (fleet/view.py), the fleet never
imports the service or the serve wiring, and no generators module imports itself back through another."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_layers import ROOT, _imports

PACKAGE = "argocd_lifecycle.generators"
FOLDER = ROOT / "generators"


def _module_of(path: Path) -> str:
    parts = path.relative_to(FOLDER).with_suffix("").parts
    return ".".join((PACKAGE, *parts[:-1])) if parts[-1] == "__init__" else ".".join((PACKAGE, *parts))


MODULES = {_module_of(p): p for p in sorted(FOLDER.rglob("*.py"))}


def _generators_imports(path: Path) -> set[str]:
    """The generators modules ``path`` imports (``from a.b import c`` counts as a.b.c when that is a module)."""
    found = set()
    for _, name in _imports(path):
        if name in MODULES:
            found.add(name)
        elif name.rpartition(".")[0] in MODULES:
            found.add(name.rpartition(".")[0])
    return found


GRAPH = {module: _generators_imports(path) - {module} for module, path in MODULES.items()}


def _inside(module: str, subpackage: str) -> bool:
    return module == f"{PACKAGE}.{subpackage}" or module.startswith(f"{PACKAGE}.{subpackage}.")


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _inside(m, "fleet")))
def test_the_fleet_imports_only_itself(module: str) -> None:
    assert sorted(m for m in GRAPH[module] if not _inside(m, "fleet")) == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _inside(m, "service")))
def test_the_service_reads_the_fleet_only_through_its_contract(module: str) -> None:
    allowed = {f"{PACKAGE}.fleet", f"{PACKAGE}.fleet.view"}
    assert sorted(m for m in GRAPH[module] if not _inside(m, "service") and m not in allowed) == []


def test_no_import_cycles() -> None:
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        for target in sorted(GRAPH[module]):
            if target in path:
                cycles.append([*path[path.index(target) :], target])
            elif target not in done:
                visit(target, [*path, target])
        done.add(module)

    done: set[str] = set()
    for module in sorted(GRAPH):
        if module not in done:
            visit(module, [module])
    assert cycles == []


def test_the_checks_see_the_imports() -> None:
    # guards against a check that passes because it reads nothing
    assert f"{PACKAGE}.fleet.view" in GRAPH[f"{PACKAGE}.service.answers"]
    assert f"{PACKAGE}.fleet.upgrade" in GRAPH[f"{PACKAGE}.fleet.lifecycle"]
    assert f"{PACKAGE}.runner" in GRAPH[f"{PACKAGE}.cli"]
