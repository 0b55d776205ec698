"""Links of the Markdown GitHub shows outside the docs site (README, CONTRIBUTING, CHANGELOG, the example
folder) lead to files that exist (mkdocs build --strict checks the site's own pages), and the Argo CD
release the install pages name is the one the tests pin."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.unit.docs.blocks import REPO

TOP = [
    p for p in (REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "CHANGELOG.md", REPO / "examples" / "README.md")
]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def broken(path: Path, root: Path = REPO) -> list[str]:
    out = []
    for target in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = (path.parent / target.split("#", 1)[0]).resolve()
        if not file.exists():
            out.append(f"{path.relative_to(root)}: {target} does not exist")
    return out


@pytest.mark.parametrize("path", TOP, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_lead_to_files(path: Path) -> None:
    assert broken(path) == []


def test_a_broken_link_is_caught(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("")
    doc = tmp_path / "doc.md"
    doc.write_text("[gone](nowhere.md), [ok](there.md#a), [site](https://example.com), [here](#top)\n")
    assert broken(doc, tmp_path) == ["doc.md: nowhere.md does not exist"]


def test_the_install_pages_name_the_pinned_argo_cd() -> None:
    pinned = re.search(
        r"github\.com/argoproj/argo-cd/v3 (v[\d.]+)", (REPO / "tools" / "go" / "argocd" / "go.mod").read_text()
    )
    assert pinned
    for page in (REPO / "docs" / "install").glob("*.md"):
        for named in re.findall(r"argo-cd/(v\d+\.\d+\.\d+)/manifests", page.read_text(encoding="utf-8")):
            assert named == pinned.group(1), f"{page.relative_to(REPO)} names Argo CD {named}"
