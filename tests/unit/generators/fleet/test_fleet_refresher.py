"""Which ApplicationSets the refresher asks to refresh: any plugin generator, nested too, with our ConfigMap."""

from __future__ import annotations

import pytest

from argocd_lifecycle.generators.fleet.refresher import uses_plugin_generator


@pytest.mark.parametrize(
    ("generators", "configmap", "expected"),
    [
        ([{"plugin": {"configMapRef": {"name": "argocd-lifecycle"}}}], "", True),
        ([{"plugin": {"configMapRef": {"name": "argocd-lifecycle"}}}], "argocd-lifecycle", True),
        ([{"plugin": {"configMapRef": {"name": "other"}}}], "argocd-lifecycle", False),
        ([{"matrix": {"generators": [{"git": {}}, {"plugin": {"configMapRef": {"name": "x"}}}]}}], "", True),
        ([{"clusters": {}}, {"list": {"elements": [{"plugin": "not a generator"}]}}], "", False),
    ],
)
def test_uses_plugin_generator(generators: list, configmap: str, expected: bool) -> None:
    assert uses_plugin_generator({"spec": {"generators": generators}}, configmap) is expected
