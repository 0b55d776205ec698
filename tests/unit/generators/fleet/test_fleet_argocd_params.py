"""Argo CD's namespaces from argocd-cmd-params-cm, split as Argo CD splits them, and which of them the
generator's watch covers (a watched namespace name, or everything with '*'); never a pattern evaluated."""

from __future__ import annotations

from typing import Any

import pytest

from argocd_lifecycle.generators.fleet.argocd_params import (
    APPLICATION_NAMESPACES,
    APPSET_NAMESPACES,
    ARGOCD_CMD_PARAMS_CM,
    NAMED,
    ArgoNamespaces,
    ArgoParamsError,
    read_argo_namespaces,
    shown,
)
from argocd_lifecycle.generators.fleet.namespaces import Namespaces
from argocd_lifecycle.kube.client import KubeError

WHERE = "ConfigMap argocd/argocd-cmd-params-cm"


class _Core:
    def read_namespaced_config_map(self, name: str, namespace: str) -> Any:
        raise AssertionError("called through Kube.call")


class FakeKube:
    """Kube.call's contract: the raw JSON body, or KubeError with the HTTP status."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.core = _Core()
        self.asked: list[tuple[str, str, tuple[Any, ...]]] = []

    def call(self, what: str, fn: Any, *args: Any) -> Any:
        self.asked.append((what, fn.__name__, args))
        if isinstance(self.answer, KubeError):
            raise self.answer
        return self.answer


def params(data: dict[str, Any]) -> ArgoNamespaces:
    return ArgoNamespaces.parse(data, WHERE)


def test_entries_are_split_on_commas_and_trimmed_as_argo_cd_does() -> None:
    argo = params({
        APPSET_NAMESPACES: " team-a, team-b ,\n  team-*,, /^ops-[0-9]+$/ ,team-a",
        APPLICATION_NAMESPACES: "team-a,team-b",
        "server.insecure": "true",
    })  # fmt: skip
    assert argo.appsets == ("team-a", "team-b", "team-*", "/^ops-[0-9]+$/")  # empties and repeats dropped
    assert argo.applications == ("team-a", "team-b")


@pytest.mark.parametrize("data", [{}, {APPSET_NAMESPACES: ""}, {APPSET_NAMESPACES: " , ,"}])
def test_no_entry_is_argo_cds_default_its_own_namespace_only(data: dict[str, Any]) -> None:
    assert params(data) == ArgoNamespaces()


@pytest.mark.parametrize(
    ("flag", "patterns", "left"),
    [
        (["team-a", "team-b"], ("team-a", "team-b", "argocd"), ()),  # names, all watched (argocd always is)
        (["team-a"], ("team-a", "team-b"), ("team-b",)),  # a name not watched
        (["team-a", "team-b"], ("team-*",), ("team-*",)),  # a glob: never taken as covered by names
        (["team-a"], ("/^team-a$/",), ("/^team-a$/",)),  # a regular expression, even one matching a watched name
        (["team-a"], ("*",), ("*",)),
        (["team-a"], ("Team-A",), ("Team-A",)),  # not a namespace name: not a watched one either
        (["*"], ("team-*", "/x/", "*", "team-z"), ()),  # every namespace watched: everything covered
    ],
)
def test_a_pattern_is_covered_only_by_a_watched_name_or_by_every_namespace(
    flag: list[str], patterns: tuple[str, ...], left: tuple[str, ...]
) -> None:
    argo = ArgoNamespaces(appsets=patterns, applications=patterns)
    unwatched = argo.unwatched(Namespaces.parse("argocd", flag))
    assert unwatched == ArgoNamespaces(left, left)


def test_shown_names_a_few_patterns_quoted_and_counts_the_rest() -> None:
    many = [f"team-{i}-*" for i in range(NAMED + 3)]
    text = shown(many)
    assert text.startswith("'team-0-*', 'team-1-*'") and text.endswith(" and 3 more")
    assert shown(["x" * 300]) == repr("x" * 64 + "...")


def test_the_configmap_is_read_once_from_the_argo_cd_namespace() -> None:
    kube = FakeKube({"data": {APPSET_NAMESPACES: "team-*"}})
    assert read_argo_namespaces(kube, "argocd").appsets == ("team-*",)  # type: ignore[arg-type]
    assert kube.asked == [
        ("read ConfigMap argocd/argocd-cmd-params-cm", "read_namespaced_config_map", (ARGOCD_CMD_PARAMS_CM, "argocd"))
    ]


@pytest.mark.parametrize("answer", [{}, {"data": None}, {"data": "x"}, [], "text"])
def test_a_configmap_without_data_is_the_default(answer: Any) -> None:
    assert read_argo_namespaces(FakeKube(answer), "argocd") == ArgoNamespaces()  # type: ignore[arg-type]


def test_no_configmap_is_argo_cds_default() -> None:
    kube = FakeKube(KubeError("read ConfigMap argocd/argocd-cmd-params-cm: HTTP 404 Not Found", status=404))
    assert read_argo_namespaces(kube, "argocd") == ArgoNamespaces()  # type: ignore[arg-type]


@pytest.mark.parametrize(("status", "text"), [(403, "HTTP 403 Forbidden"), (500, "HTTP 500"), (None, "timed out")])
def test_a_configmap_that_cannot_be_read_stops_the_start_naming_the_grant(status: int | None, text: str) -> None:
    kube = FakeKube(KubeError(f"read ConfigMap argocd/argocd-cmd-params-cm: {text}", status=status))
    with pytest.raises(ArgoParamsError) as caught:
        read_argo_namespaces(kube, "argocd")  # type: ignore[arg-type]
    message = caught.value.message
    assert message.startswith(f"read ConfigMap argocd/argocd-cmd-params-cm: {text} (")
    assert "the chart's generator Role grants get on ConfigMap argocd-cmd-params-cm" in message
    assert "generator.applicationNamespaces: ['*']" in message
    assert caught.value.exit_code == 1
