"""The layer contract: core imports no part; each part (plugin, generators, notifications) imports only
core and itself. Read from the source with ast, so a lazy import inside a function counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PARTS = {"plugin": "plugin", "generators": "generators", "notifications": "notifications"}
PREFIX = "argocd_lifecycle"


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def _part_of(module: str) -> str | None:
    """The part a module name belongs to: a part's folder name, "core", or None (not ours)."""
    if module != PREFIX and not module.startswith(PREFIX + "."):
        return None
    second = module.split(".")[1] if "." in module else ""
    return second if second in PARTS else "core"


def _violations(folder: str, own: str) -> list[str]:
    bad = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for line, module in _imports(path):
            part = _part_of(module)
            if part is not None and part not in (own, "core"):
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    return bad


@pytest.mark.parametrize("folder", sorted(PARTS))
def test_a_part_imports_only_core_and_itself(folder: str) -> None:
    assert _violations(folder, PARTS[folder]) == []


def test_core_imports_no_part() -> None:
    bad = []
    for path in sorted((ROOT / "core").rglob("*.py")):
        for line, module in _imports(path):
            part = _part_of(module)
            if part is not None and part != "core":
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert bad == []


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    # The contract must be able to fail: a cross-part import, also inside a function, is found.
    source = tmp_path / "mod.py"
    source.write_text("def f():\n    from argocd_lifecycle.generators.fleet import FleetView\n")
    assert (2, "argocd_lifecycle.generators.fleet") in _imports(source)
    assert _part_of("argocd_lifecycle.generators.fleet") == "generators"
    assert _part_of("argocd_lifecycle.errors") == "core"
    assert _part_of("yaml") is None
