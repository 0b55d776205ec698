"""docs/architecture.md is where a newcomer finds every contract: each path it names must exist, and every
core module (where the shared contracts live) must be named in it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
TOP = (
    "app",
    "core",
    "plugin",
    "generators",
    "notifications",
    "charts",
    "tests",
    "tools",
    "benchmarks",
    "docs",
    "examples",
)
FILES = ("Dockerfile", "pyproject.toml", "Makefile", "README.md")


def named_paths() -> list[str]:
    tokens = re.findall(r"`([^`\s]+)`", DOC.read_text(encoding="utf-8"))
    return sorted({t for t in tokens if t in FILES or (t.split("/")[0] in TOP and "/" in t and "<" not in t)})


def exists(token: str) -> bool:
    if "*" in token:
        return any(ROOT.glob(token))
    return (ROOT / token).exists()


def test_the_document_names_paths_at_all() -> None:
    assert len(named_paths()) > 50


@pytest.mark.parametrize("token", named_paths())
def test_every_named_path_exists(token: str) -> None:
    assert exists(token), f"docs/architecture.md names {token}, which is not in the repository"


@pytest.mark.parametrize(
    "module",
    sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "core").rglob("*.py")
        if p.name not in ("__init__.py", "__main__.py") and "__pycache__" not in p.parts
    ),
)
def test_every_core_module_is_in_the_map(module: str) -> None:
    hint = f"{module} holds shared code: say in docs/architecture.md what it is for"
    assert f"`{module}`" in DOC.read_text(encoding="utf-8"), hint


def test_the_tree_lists_every_package_folder_once() -> None:
    # the tree must read as the architecture: its one-line-per-folder list is the packages on disk
    text = DOC.read_text(encoding="utf-8")
    block = text.split("### 2.1 The tree", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    listed = [line.split()[0].rstrip("/") for line in block.splitlines() if line.strip()]
    on_disk = sorted(
        str(p.parent.relative_to(ROOT))
        for top in ("app", "core", "plugin", "generators", "notifications")
        for p in (ROOT / top).rglob("__init__.py")
    )
    assert sorted(listed) == on_disk
    assert len(listed) == len(set(listed))


def _test_files() -> list[Path]:
    return sorted(p for tier in ("unit", "integration") for p in (ROOT / "tests" / tier).rglob("test_*.py"))


def test_test_files_are_named_after_their_folder_and_unique() -> None:
    wrong = []
    for path in _test_files():
        rel, folder = str(path.relative_to(ROOT)), path.parent.name
        if path.parent in (ROOT / "tests" / "unit", ROOT / "tests" / "integration"):
            continue
        if "docs" in path.relative_to(ROOT).parts[2:]:
            continue  # the documentation's own tests: their owner names them (tests/unit/docs, tests/integration/docs)
        if not (path.name.startswith(f"test_{folder}_") or path.name == f"test_{folder}.py"):
            wrong.append(rel)
    assert wrong == []
    names = [p.name for p in _test_files()]
    assert sorted({n for n in names if names.count(n) > 1}) == []
