"""The layer contract: core imports no part; each part (plugin, generators, notifications) imports only
core and itself; the application shell (app) sits on top and nothing imports it; and no module imports
itself back through others (the import graph has no cycle).
Read from the source with ast, so a lazy import inside a function counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PARTS = {"plugin": "plugin", "generators": "generators", "notifications": "notifications"}
PREFIX = "argocd_lifecycle"
#: the top layer: it may import core and every part; no module outside it imports it
SHELL = "app"


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
    return second if second in PARTS or second == SHELL else "core"


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


#: the folders as pyproject.toml's package-dir maps them onto the import namespace
FOLDERS = {"core": PREFIX, SHELL: f"{PREFIX}.{SHELL}", **{folder: f"{PREFIX}.{part}" for part, folder in PARTS.items()}}


def test_the_shell_is_imported_by_nothing_and_sees_every_part() -> None:
    importers = [
        f"{path.relative_to(ROOT)}:{line}"
        for folder in ("core", *PARTS.values())
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, module in _imports(path)
        if _part_of(module) == SHELL
    ]
    assert importers == []
    seen = {_part_of(m) for path in (ROOT / SHELL).rglob("*.py") for _, m in _imports(path)}
    assert {"core", *PARTS} <= seen  # every command is an import statement the checks can see


def module_name(path: Path) -> str:
    folder, *rest = path.relative_to(ROOT).with_suffix("").parts
    parts = rest[:-1] if rest[-1] == "__init__" else rest
    return ".".join((FOLDERS[folder], *parts))


def _module_files() -> dict[str, Path]:
    return {module_name(path): path for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))}


MODULES = _module_files()


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the modules of ours it names (``from a.b import c`` is a.b.c when that is a module)."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = set()
        for _, name in _imports(path):
            if name in modules:
                targets.add(name)
            elif name.rpartition(".")[0] in modules:
                targets.add(name.rpartition(".")[0])
        graph[module] = targets - {module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle a depth-first walk meets (each back edge, as the path it closes)."""
    found: list[list[str]] = []
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        for target in sorted(graph.get(module, ())):
            if target in path:
                found.append([*path[path.index(target) :], target])
            elif target not in done:
                visit(target, [*path, target])
        done.add(module)

    for module in sorted(graph):
        if module not in done:
            visit(module, [module])
    return found


def test_the_import_graph_has_no_cycle() -> None:
    assert cycles(import_graph(MODULES)) == []


def test_the_cycle_check_sees_a_cycle(tmp_path: Path) -> None:
    # the assertion must be able to fail: a contract and its factory in one module, imported back
    (tmp_path / "state.py").write_text("def open_state():\n    from argocd_lifecycle.sqlite_state import Store\n")
    (tmp_path / "sqlite_state.py").write_text("from argocd_lifecycle.state import StateError\n")
    modules = {f"{PREFIX}.state": tmp_path / "state.py", f"{PREFIX}.sqlite_state": tmp_path / "sqlite_state.py"}
    graph = import_graph(modules)
    assert cycles(graph) == [[f"{PREFIX}.sqlite_state", f"{PREFIX}.state", f"{PREFIX}.sqlite_state"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_every_part() -> None:
    # guards against a check that passes because it reads nothing
    graph = import_graph(MODULES)
    assert f"{PREFIX}.deprecations.rules" in graph[f"{PREFIX}.deprecations.table"]
    assert f"{PREFIX}.plugin.rewrite.convert.registry" in graph[f"{PREFIX}.plugin.rewrite.convert.conv_ingress"]
    assert f"{PREFIX}.notifications.receiver.sinks.base" in graph[f"{PREFIX}.notifications.receiver.sinks.slack"]
    assert f"{PREFIX}.generators.fleet.view" in graph[f"{PREFIX}.generators.service.answers"]
