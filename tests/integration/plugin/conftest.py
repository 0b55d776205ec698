"""The plugin's integration tier runs the real helm and kustomize from `make tools`."""

from __future__ import annotations

import pytest

from tests.conftest import require_tool


@pytest.fixture(scope="module")
def helm_and_kustomize() -> None:
    require_tool("helm")
    require_tool("kustomize")
