"""Which ApplicationSets the refresher asks to refresh: any plugin generator, nested too, with our ConfigMap."""

from __future__ import annotations

from typing import Any

import pytest

from argocd_lifecycle.generators.fleet.namespaces import Namespaces
from argocd_lifecycle.generators.fleet.refresher import AppSetRefresher, uses_plugin_generator
from argocd_lifecycle.generators.fleet.view import split_key


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


class _Custom:
    def __init__(self, appsets: list[dict[str, Any]]) -> None:
        self.appsets = appsets
        self.patched: list[tuple[str, str]] = []

    def list_namespaced_custom_object(self, group: str, version: str, namespace: str, plural: str, **_: Any) -> Any:
        return {"items": [a for a in self.appsets if a["metadata"]["namespace"] == namespace], "metadata": {}}

    def list_cluster_custom_object(self, group: str, version: str, plural: str, **_: Any) -> Any:
        return {"items": self.appsets, "metadata": {}}

    def patch_namespaced_custom_object(self, group: str, version: str, namespace: str, plural: str, name: str,
                                       body: Any, **_: Any) -> Any:  # fmt: skip
        self.patched.append((namespace, name))
        return {}


class _Kube:
    def __init__(self, appsets: list[dict[str, Any]]) -> None:
        self.custom = _Custom(appsets)

    def call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)


def _plugin_appset(name: str, namespace: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": namespace},
            "spec": {"generators": [{"plugin": {"configMapRef": {"name": "argocd-lifecycle"}}}]}}  # fmt: skip


@pytest.mark.parametrize("values", [["team-a"], ["*"]])
def test_every_watched_namespaces_appsets_are_refreshed_in_their_own_namespace(values: list[str]) -> None:
    kube = _Kube([_plugin_appset("web", "argocd"), _plugin_appset("web", "team-a"), _plugin_appset("x", "team-z")])
    watched = Namespaces.parse("argocd", values)
    refresher = AppSetRefresher(kube, watched, lambda: True)  # type: ignore[arg-type]
    keys = refresher.refresh_now()
    expected = ["web", "team-a/web"] + (["team-z/x"] if values == ["*"] else [])
    assert sorted(keys) == sorted(expected)
    assert sorted(kube.custom.patched) == sorted(split_key(k, "argocd") for k in expected)
