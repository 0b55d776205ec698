"""Imports are at the top of every module, except inside the fence: the few modules where a deferred
import keeps a render's cold start (or an optional extra) off what a run does not use. Read with ast, so
any import inside a function or under ``if TYPE_CHECKING`` outside the fence fails here.
The fence and why each module is in it: docs/architecture.md ("The fence")."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.test_layers import ROOT

FOLDERS = ("app", "core", "plugin", "generators", "notifications")
#: at most eight: a module joins only with a measured reason, named in docs/architecture.md
FENCE = {
    "app/entry.py": "the console entry: `plugin generate` without click",
    "app/cli.py": "the root command group: a command's module only when it is invoked",
    "plugin/render/start.py": "the one start of a render: the renderer of the kind found, the output reader and "
    "kustomize's patch warnings while the tool runs, Jinja2 only for templates",
    "plugin/transforms/plan.py": "the plan: the rewrite, lifecycle and schema steps only when a render needs them",
    "plugin/rewrite/convert/registry.py": "the converter registry: converters loaded by name at the first conversion",
    "plugin/commands/scan.py": "scan and convert: what only one verb or flag needs",
    "notifications/timeline/cli.py": "-o svg: matplotlib is an optional extra",
}


def _guarded(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def deferred_imports(source: str) -> list[int]:
    """Lines of imports that are not at module level: inside a function or a TYPE_CHECKING block, an
    import by name (``importlib.import_module``, which no layer check can follow), and the
    ``TYPE_CHECKING = False`` stand-in itself."""
    tree = ast.parse(source)
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or (
            isinstance(node, ast.If) and _guarded(node.test)
        ):
            lines += [n.lineno for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)]
        elif (
            isinstance(node, ast.Call) and ast.unparse(node.func) in ("importlib.import_module", "import_module")
        ) or (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "TYPE_CHECKING" for t in node.targets)
        ):
            lines.append(node.lineno)
    return sorted(set(lines))


def _modules() -> list[Path]:
    return [p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]


def test_imports_outside_the_fence_are_at_the_top() -> None:
    bad = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in _modules()
        if str(path.relative_to(ROOT)) not in FENCE
        for line in deferred_imports(path.read_text(encoding="utf-8"))
    ]
    assert bad == []


def test_the_fence_is_small_and_every_module_in_it_defers_something() -> None:
    assert len(FENCE) <= 8
    assert [path for path in FENCE if not deferred_imports((ROOT / path).read_text(encoding="utf-8"))] == []


def test_the_check_sees_a_deferred_import() -> None:
    # the contract must be able to fail: each way of deferring an import is found
    assert deferred_imports("def f():\n    import json\n") == [2]
    assert deferred_imports("async def f():\n    if x:\n        from a import b\n") == [3]
    assert deferred_imports("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import a\n") == [3]
    assert deferred_imports("TYPE_CHECKING = False\n") == [1]
    assert deferred_imports("import importlib\nplugin = importlib.import_module('argocd_lifecycle.plugin')\n") == [2]
    assert deferred_imports("import json\nfrom a import b\n\ndef f():\n    return json\n") == []
