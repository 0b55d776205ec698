"""docs/security.md stays true of the corpus and the tests: the case count it states is the corpus' size,
every case it names (``helm-values-*`` names a family) is in the corpus, and every test file and test
function it names exists. Runs no process."""

from __future__ import annotations

import fnmatch
import re

import pytest

from tests.conftest import REPO
from tests.integration.plugin.attacks import cases_helm, cases_inputs, cases_jinja, cases_kustomize, cases_secrets

DOC = REPO / "docs" / "security.md"
TEXT = DOC.read_text(encoding="utf-8")
IDS = [c.id for m in (cases_helm, cases_inputs, cases_jinja, cases_kustomize, cases_secrets) for c in m.CASES]
#: a corpus case is a backticked lowercase-and-dashes name with at least two dashes
NAMED_CASES = sorted(set(re.findall(r"`([a-z0-9]+(?:-[a-z0-9*]+){2,})`", TEXT)))


def test_the_stated_size_is_the_corpus_size() -> None:
    stated = re.search(r"(\d+)\s+cases\s+in\s+\w+\s+case\s+tables", TEXT)
    assert stated, "docs/security.md states the corpus' size"
    assert int(stated.group(1)) == len(IDS)


@pytest.mark.parametrize("name", NAMED_CASES)
def test_every_named_case_is_in_the_corpus(name: str) -> None:
    assert fnmatch.filter(IDS, name), f"docs/security.md names {name}, which no corpus case is"


def _named_tests() -> list[tuple[str, str]]:
    """(test file, function) for each ``file.py::test_x`` and each ``::test_y`` that follows it."""
    out, last = [], ""
    for path, func in re.findall(r"`((?:[\w/]+/)?test_\w+\.py)?::(test_\w+)`", TEXT):
        last = path or last
        out.append((last, func))
    return out


@pytest.mark.parametrize(("path", "func"), _named_tests())
def test_every_named_test_exists(path: str, func: str) -> None:
    # a bare file name may stand for files of several tiers: one of them must hold the test
    files = [REPO / path] if "/" in path else sorted((REPO / "tests").rglob(path))
    defined = re.compile(rf"^(async )?def {func}\(", re.M)
    assert any(f.is_file() and defined.search(f.read_text(encoding="utf-8")) for f in files), (
        f"docs/security.md names {path}::{func}, which no test file holds"
    )


@pytest.mark.parametrize("path", sorted(set(re.findall(r"`((?:tests|plugin|core)/[\w/.]+)`", TEXT))))
def test_every_named_path_exists(path: str) -> None:
    assert (REPO / path).exists(), f"docs/security.md names {path}, which is not in the repository"
