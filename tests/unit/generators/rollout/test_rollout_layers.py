"""The rollout's pure parts (input, windows, state, machine) import only core and themselves; only the
keeper, which reads and writes Kubernetes, builds on the fleet; the fleet never imports the rollout."""

from __future__ import annotations

import pytest

from tests.unit.generators.test_generators_subpackages import GRAPH, PACKAGE, _inside

ROLLOUT = sorted(m for m in GRAPH if _inside(m, "rollout"))
PURE = [m for m in ROLLOUT if m != f"{PACKAGE}.rollout.keeper"]


@pytest.mark.parametrize("module", PURE)
def test_the_pure_rollout_imports_only_itself(module: str) -> None:
    assert sorted(m for m in GRAPH[module] if m.startswith(PACKAGE) and not _inside(m, "rollout")) == []


@pytest.mark.parametrize("module", ROLLOUT)
def test_the_rollout_never_imports_the_service_or_the_wiring(module: str) -> None:
    others = [m for m in GRAPH[module] if m.startswith(PACKAGE) and not _inside(m, "rollout")]
    assert sorted(m for m in others if not _inside(m, "fleet")) == []


def test_the_checks_see_the_rollout_modules() -> None:
    assert f"{PACKAGE}.rollout.machine" in PURE
    assert f"{PACKAGE}.rollout.spec" in GRAPH[f"{PACKAGE}.rollout.machine"]
