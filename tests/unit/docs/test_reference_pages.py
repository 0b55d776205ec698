"""The generated reference pages are what the code says today, and the site's navigation has every page."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.unit.docs.blocks import REPO
from tests.unit.docs.reference import pages


@pytest.mark.parametrize(("page", "text"), sorted(pages().items()), ids=lambda x: getattr(x, "name", ""))
def test_reference_page_is_generated(page: Path, text: str) -> None:
    assert page.read_text(encoding="utf-8") == text, "run: python -m tests.unit.docs.reference"


class _Loader(yaml.SafeLoader):
    """mkdocs.yml's `!!python/name:` tags are only names here."""


_Loader.add_multi_constructor("tag:yaml.org,2002:python/name:", lambda loader, suffix, node: suffix)


def nav_pages(node: object) -> set[str]:
    if isinstance(node, str):
        return {node} if node.endswith(".md") else set()
    if isinstance(node, dict):
        return set().union(*(nav_pages(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(nav_pages(v) for v in node))
    return set()


def test_every_page_is_in_the_navigation() -> None:
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    docs = REPO / config["docs_dir"]
    pages_on_disk = {str(p.relative_to(docs)) for p in docs.rglob("*.md")}
    assert nav_pages(config["nav"]) == pages_on_disk


def test_the_site_and_the_chart_give_the_same_addresses() -> None:
    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    chart = yaml.safe_load((REPO / "charts" / "argocd-lifecycle" / "Chart.yaml").read_text(encoding="utf-8"))
    assert chart["home"] == config["site_url"]
    assert chart["sources"] == [config["repo_url"]]
