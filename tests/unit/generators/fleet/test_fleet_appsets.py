"""Placing the ApplicationSet of a request: Argo CD names it, never its namespace."""

from __future__ import annotations

from typing import Any

import pytest

from argocd_lifecycle.generators.fleet.appsets import AppSetIndex
from argocd_lifecycle.generators.fleet.namespaces import Namespaces


def appset(name: str, namespace: str, *, project: Any = "default", uid: str = "") -> dict[str, Any]:
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": name, "namespace": namespace, "uid": uid or f"uid-{namespace}-{name}"},
        "spec": {"template": {"spec": {"project": project}}},
    }


def _index(*names: str, unwatched: tuple[str, ...] = ()) -> AppSetIndex:
    index = AppSetIndex(Namespaces.parse("argocd", names), unwatched=unwatched)
    for scope in index.namespaces.scopes:
        index.listed([], scope)
    return index


def test_a_name_in_one_watched_namespace_is_placed_there() -> None:
    index = _index("team-a", "team-b")
    index.upserted(appset("web", "team-a", project="team-a"))
    index.upserted(appset("shop", "argocd"))
    web = index.place("web", "")
    assert (web.key, web.namespace, web.name, web.project, web.problem) == ("team-a/web", "team-a", "web", "team-a", "")
    shop = index.place("shop", "")
    assert (shop.key, shop.namespace) == ("shop", "argocd")  # the Argo CD namespace's keys stay bare names
    assert index.uid("team-a/web") == "uid-team-a-web" and index.uid("shop") == "uid-argocd-shop"


def test_a_name_in_two_namespaces_is_not_placed_until_the_input_names_one() -> None:
    index = _index("team-a", "team-b")
    index.upserted(appset("web", "team-a"))
    index.upserted(appset("web", "team-b", project="b"))
    ambiguous = index.place("web", "")
    assert ambiguous.key == ""
    assert "exist in 2 namespaces (team-a, team-b)" in ambiguous.problem
    assert "set input parameter applicationSetNamespace" in ambiguous.problem
    placed = index.place("web", "team-b")
    assert (placed.key, placed.project, placed.problem) == ("team-b/web", "b", "")


def test_a_name_in_no_watched_namespace_says_how_to_grant_the_watch() -> None:
    index = _index("team-a")
    missing = index.place("web", "")
    assert missing.key == ""
    assert "no ApplicationSet 'web' in the namespaces this generator watches (argocd, team-a)" in missing.problem
    assert "generator.applicationNamespaces" in missing.problem


def test_an_input_naming_an_unwatched_namespace_or_a_missing_appset_is_not_placed() -> None:
    index = _index("team-a")
    index.upserted(appset("web", "team-a"))
    unwatched = index.place("web", "team-z")
    assert "does not watch" in unwatched.problem and "generator.applicationNamespaces" in unwatched.problem
    elsewhere = index.place("web", "argocd")
    assert "no ApplicationSet 'web' in namespace 'argocd'" in elsewhere.problem


def test_an_appset_outside_the_watched_namespaces_is_never_taken_in() -> None:
    """A cluster-wide answer (or a hostile API) handing over another namespace's object changes nothing."""
    index = _index("team-a")
    index.upserted(appset("web", "team-z"))
    assert index.place("web", "").problem


def test_a_relist_of_one_namespace_leaves_the_others_and_a_delete_forgets() -> None:
    index = _index("team-a", "team-b")
    index.upserted(appset("web", "team-a"))
    index.upserted(appset("web", "team-b"))
    index.listed([], "team-b")  # team-b's web is gone
    assert index.place("web", "").key == "team-a/web"
    index.deleted(appset("web", "team-a"))
    assert index.place("web", "").problem


def test_not_synced_until_every_namespace_listed() -> None:
    index = AppSetIndex(Namespaces.parse("argocd", ["team-a"]))
    index.listed([], "argocd")
    assert not index.synced()
    index.listed([], "team-a")
    assert index.synced()
    everywhere = AppSetIndex(Namespaces.parse("argocd", ["*"]))
    everywhere.listed([appset("web", "anywhere")], "*")
    assert everywhere.synced() and everywhere.place("web", "").key == "anywhere/web"


@pytest.mark.parametrize("project", [{"a": 1}, ["x"], 7, None, "{{ .project }}", "p" * 300])
def test_a_project_that_is_not_a_plain_string_is_left_empty(project: Any) -> None:
    index = _index()
    index.upserted(appset("web", "argocd", project=project))
    assert index.place("web", "").project == ""


def test_a_name_found_once_is_not_placed_while_argo_cd_takes_appsets_from_unwatched_namespaces() -> None:
    """applicationsetcontroller.namespaces has `team-*`, the generator watches team-a only: the `web` it
    finds in team-a may be team-c's asking, whose Applications it cannot see."""
    index = _index("team-a", unwatched=("team-*", "/^ops-/"))
    index.upserted(appset("web", "team-a", project="team-a"))
    index.upserted(appset("shop", "argocd"))
    for name in ("web", "shop"):  # the Argo CD namespace's own too: the name alone says nothing
        refused = index.place(name, "")
        assert refused.key == "" and refused.problem
    problem = index.place("web", "").problem
    assert problem == (
        "cannot place ApplicationSet 'web': Argo CD's ApplicationSet controller also takes ApplicationSets from "
        "namespaces this generator does not watch (applicationsetcontroller.namespaces in argocd-cmd-params-cm: "
        "'team-*', '/^ops-/'), so the 'web' found in namespace 'team-a' may not be the one asking; set input "
        "parameter applicationSetNamespace to the ApplicationSet's own namespace in its plugin generator, or add "
        "those namespaces (or '*') to generator.applicationNamespaces in the chart (--application-namespace of "
        "generator serve); answering nothing rather than unguarded"
    )
    # naming a watched namespace places it as before, with its project
    placed = index.place("web", "team-a")
    assert (placed.key, placed.project, placed.problem) == ("team-a/web", "team-a", "")
    assert index.place("shop", "argocd").key == "shop"
    # naming one that matches the unwatched pattern is refused as any unwatched namespace is
    assert "does not watch" in index.place("web", "team-c").problem
    # a name in no watched namespace: the patterns say where it may be
    assert "if it lives in another namespace (Argo CD also takes ApplicationSets from 'team-*', '/^ops-/'), grant" in (
        index.place("api", "").problem
    )


def test_without_unwatched_patterns_a_name_found_once_is_placed_as_before() -> None:
    index = _index("team-a", unwatched=())
    index.upserted(appset("web", "team-a"))
    assert index.place("web", "").key == "team-a/web"


def test_an_applicationset_refused_before_the_watch_brought_it_is_asked_again_when_it_comes() -> None:
    index = _index("team-a")
    asked: list[str] = []
    index.on_appeared = asked.append
    assert "no ApplicationSet 'web'" in index.place("web", "").problem  # Argo CD asked first
    assert "no ApplicationSet 'fleet'" in index.place("fleet", "team-a").problem
    index.upserted(appset("web", "team-a"))
    index.upserted(appset("fleet", "team-a"))
    assert asked == ["team-a/web", "team-a/fleet"]
    index.upserted(appset("web", "team-a"))  # an update of one already seen: asked once only
    index.upserted(appset("shop", "argocd"))  # never refused: Argo CD's own reconcile follows
    assert asked == ["team-a/web", "team-a/fleet"] and index.place("web", "").key == "team-a/web"


def test_a_refusal_long_ago_or_pushed_out_by_a_flood_of_names_asks_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from argocd_lifecycle.generators.fleet import appsets

    index = _index("team-a")
    asked: list[str] = []
    index.on_appeared = asked.append
    index.place("old", "")
    now = appsets.time.monotonic()
    monkeypatch.setattr(appsets.time, "monotonic", lambda: now + appsets.MISSED_SECONDS + 1)
    index.upserted(appset("old", "team-a"))
    index.place("web", "")
    for i in range(appsets.MAX_MISSED):  # requests naming ApplicationSets that never come: bounded memory
        index.place(f"noise-{i}", "")
    assert len(index._missed) == appsets.MAX_MISSED
    index.upserted(appset("web", "team-a"))
    assert asked == []
