"""The files a platform team reads before installing: the licence, the changelog, and the chart's
metadata, which Artifact Hub shows (its changes are the changelog's section of the chart's version)."""

from __future__ import annotations

import tomllib
from typing import Any

import yaml

from tests.unit.docs.blocks import REPO
from tests.unit.docs.changelog import changes, sections

CHART = yaml.safe_load((REPO / "charts" / "argocd-lifecycle" / "Chart.yaml").read_text(encoding="utf-8"))
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_license_is_apache_2_0_in_full() -> None:
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text
    assert PYPROJECT["project"]["license"] == "Apache-2.0"
    assert CHART["annotations"]["artifacthub.io/license"] == "Apache-2.0"


def test_the_changelog_has_the_coming_version() -> None:
    assert PYPROJECT["project"]["version"] in sections()
    assert changes(PYPROJECT["project"]["version"])


def test_artifact_hub_changes_are_the_changelogs() -> None:
    shown: list[dict[str, Any]] = yaml.safe_load(CHART["annotations"]["artifacthub.io/changes"])
    assert shown == changes(CHART["version"]), "copy CHANGELOG.md's section into Chart.yaml (one entry per bullet)"


def test_the_chart_says_where_it_comes_from() -> None:
    assert CHART["home"].startswith("https://")
    assert CHART["sources"] and all(s.startswith("https://") for s in CHART["sources"])
    assert CHART["icon"].startswith(CHART["home"]) and CHART["icon"].endswith(".svg")
    assert (REPO / "docs" / CHART["icon"].removeprefix(CHART["home"])).is_file()  # published with the docs site
    assert all({"name", "email"} <= set(m) for m in CHART["maintainers"])
