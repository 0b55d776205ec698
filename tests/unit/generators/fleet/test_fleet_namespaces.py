"""The watched namespaces: the flag's values, checked as namespace names, and what is listed."""

from __future__ import annotations

import pytest

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.fleet.namespaces import EVERY, Namespaces, ScopeHealth, in_scope


def test_the_argo_cd_namespace_is_always_watched_and_listed_once() -> None:
    watched = Namespaces.parse("argocd", ["team-b", "team-a", "argocd", "team-a"])
    assert watched.scopes == ("argocd", "team-a", "team-b")
    assert watched.watched("argocd") and watched.watched("team-b")
    assert not watched.watched("team-c")
    assert Namespaces.parse("argocd", []).scopes == ("argocd",)


def test_a_star_is_one_cluster_wide_watch() -> None:
    watched = Namespaces.parse("argocd", ["team-a", "*"])
    assert watched.scopes == (EVERY,) and watched.everywhere
    assert watched.watched("anything") and watched.describe() == "every namespace"


@pytest.mark.parametrize(
    "hostile",
    ["", "Team-A", "team_a", "team a", "-team", "team-", "a" * 64, "team-a\n", "../argocd", "team/a", "tëam", "**",
     "team-a,team-b", "\x00"],
)  # fmt: skip
def test_a_value_that_is_no_namespace_name_is_a_usage_error(hostile: str) -> None:
    with pytest.raises(UsageError, match=r"--application-namespace: .* is not a namespace name"):
        Namespaces.parse("argocd", [hostile])


def test_a_long_hostile_value_is_cut_in_the_message() -> None:
    with pytest.raises(UsageError) as caught:
        Namespaces.parse("argocd", ["X" * 10_000])
    assert len(caught.value.message) < 200


def test_scope_health_is_synced_once_every_scope_listed_and_reports_the_worst_break() -> None:
    health = ScopeHealth(("argocd", "team-a"))
    health.listed("argocd")
    assert not health.synced()
    health.listed("team-a")
    assert health.synced() and health.stale_seconds() == 0.0
    health.broken("team-a")
    assert health.stale_seconds() >= 0.0
    health.listed("team-a")
    assert health.stale_seconds() == 0.0
    assert in_scope("team-a", EVERY) and in_scope("team-a", "team-a") and not in_scope("team-a", "team-b")
