"""One version everywhere: the package, the chart's version and appVersion, the image's VERSION."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from argocd_lifecycle import __version__

REPO = Path(__file__).resolve().parents[3]
CHART = REPO / "charts" / "argocd-lifecycle"


def package_version() -> str:
    return str(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"])


def test_chart_app_version_is_the_package_version() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert package_version() == __version__
    assert chart["appVersion"] == package_version()
    assert chart["version"] == package_version()
    assert isinstance(chart["appVersion"], str)  # quoted: `0.10` must not become a float


def test_image_version_is_the_package_version() -> None:
    match = re.search(r"^ARG VERSION=(\S+)$", (REPO / "Dockerfile").read_text(), re.MULTILINE)
    assert match and match.group(1) == package_version()


def test_default_image_tag_is_the_app_version() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert values["global"]["image"]["tag"] == ""  # falls back to .Chart.AppVersion
    from argocd_lifecycle.plugin.commands.sidecar_snippet import DEFAULT_IMAGE

    assert f"argocd-lifecycle:{package_version()}" == DEFAULT_IMAGE
