"""The Applications cache the mass-drop guard compares with: which clusters each ApplicationSet would lose."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.generators.fleet.applications import ApplicationIndex
from argocd_lifecycle.generators.fleet.view import Target


def app(
    name: str,
    *,
    appset: str | None = "guestbook",
    server: str = "",
    cluster: str = "",
    phase: str = "Ready",
    deleting: bool = False,
    uid: str = "uid-guestbook",
) -> dict[str, Any]:
    annotations = {"argocd-lifecycle.io/cluster-phase": phase}
    meta: dict[str, Any] = {"name": name, "namespace": "argocd", "annotations": annotations}
    if appset:
        meta["ownerReferences"] = [
            {"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet", "name": appset, "uid": uid},
        ]
    if deleting:
        meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    destination = {"server": server} if server else {"name": cluster}
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": meta,
            "spec": {"destination": {**destination, "namespace": "guestbook"}}}  # fmt: skip


def test_targets_are_the_clusters_of_the_applications_an_applicationset_owns() -> None:
    index = ApplicationIndex()
    assert not index.synced()
    index.listed([
        app("guestbook-a", server="https://a/"),
        app("guestbook-b", server="https://b", phase="Decommissioning"),
        app("shop-a", appset="shop", server="https://a"),
        app("hand-made", appset=None, server="https://c"),  # not generated: never the guard's business
        app("guestbook-x", server="https://x", deleting=True),  # being deleted: already gone for Argo CD
    ])  # fmt: skip
    assert index.synced()
    assert index.targets("guestbook") == {Target("https://a"), Target("https://b", departing=True)}
    assert index.targets("shop") == {Target("https://a")}
    assert index.targets("unknown") == frozenset()
    assert index.uid("guestbook") == "uid-guestbook"
    assert index.deploys_to("https://a") and index.deploys_to("https://b/")
    assert not index.deploys_to("https://c") and not index.deploys_to("https://x")


def test_watch_events_keep_the_targets_current_and_a_relist_replaces_them() -> None:
    index = ApplicationIndex()
    index.listed([app("guestbook-a", server="https://a")])
    index.upserted(app("guestbook-b", server="https://b"))
    index.upserted(app("guestbook-a", server="https://a2"))  # edited destination
    assert index.targets("guestbook") == {Target("https://a2"), Target("https://b")}
    index.upserted(app("guestbook-b", server="https://b", deleting=True))
    index.deleted(app("guestbook-a", server="https://a2"))
    assert index.targets("guestbook") == frozenset()
    assert not index.deploys_to("https://a2") and not index.deploys_to("https://b")
    index.listed([app("guestbook-c", server="https://c")])
    assert index.targets("guestbook") == {Target("https://c")}


def test_destinations_by_name_and_names_for_messages_come_from_the_fleet() -> None:
    known = {"https://a": "alpha"}

    def identify(server: str, name: str) -> tuple[str, str]:
        if server:
            return server, known.get(server, "")
        return next((s for s, n in known.items() if n == name), ""), name

    index = ApplicationIndex(identify)
    index.listed([app("by-server", server="https://a"), app("by-name", cluster="alpha"), app("lost", cluster="zeta")])
    # a name no cluster has any more is still something Argo CD would delete
    assert index.targets("guestbook") == {Target("https://a", "alpha"), Target("name:zeta", "zeta")}


def test_a_broken_watch_is_stale_until_the_next_listing() -> None:
    index = ApplicationIndex()
    index.listed([])
    assert index.stale_seconds() == 0.0
    index.broken()
    assert index.stale_seconds() > 0.0
    index.listed([])
    assert index.stale_seconds() == 0.0


def test_objects_of_an_unexpected_shape_do_not_count() -> None:
    index = ApplicationIndex()
    odd = app("odd", server="https://a")
    odd["spec"] = "not an object"
    foreign = app("foreign", server="https://b")
    foreign["metadata"]["ownerReferences"][0]["apiVersion"] = "example.com/v1"
    index.listed([odd, foreign, {"metadata": {}}])
    # owned but without a destination: still an Application Argo CD would delete, so it counts
    assert index.targets("guestbook") == {Target("name:")}


def test_an_application_keeps_the_cluster_name_it_was_made_for_when_another_takes_its_server() -> None:
    """Relabelling behind a duplicated server: the Application was made for cluster "alpha"; once a Secret
    named "impostor" holds the same server (and alpha is relabelled away), a name looked up by server now
    would say "impostor" and the loss of alpha's Application would hide behind it."""
    known = {"https://a": "alpha"}
    index = ApplicationIndex(lambda server, name: (server, name or known.get(server, "")))
    index.listed([app("guestbook-alpha", server="https://a")])
    assert index.targets("guestbook") == {Target("https://a", "alpha")}
    known["https://a"] = "impostor"
    index.upserted(app("guestbook-alpha", server="https://a"))  # Argo CD updates its status: still alpha's
    assert index.targets("guestbook") == {Target("https://a", "alpha")}
    index.read = lambda namespace: [app("guestbook-alpha", server="https://a")]
    assert index.confirm("guestbook") == {Target("https://a", "alpha")}
    # a new destination is resolved afresh; a deleted Application is forgotten
    known["https://b"] = "beta"
    index.upserted(app("guestbook-alpha", server="https://b"))
    assert index.targets("guestbook") == {Target("https://b", "beta")}
    index.deleted(app("guestbook-alpha", server="https://a"))
    index.upserted(app("guestbook-alpha", server="https://a"))
    assert index.targets("guestbook") == {Target("https://a", "impostor")}


def tenant_app(name: str, namespace: str, *, appset: str = "web", server: str) -> dict[str, Any]:
    obj = app(name, appset=appset, server=server, uid=f"uid-{namespace}-{appset}")
    obj["metadata"]["namespace"] = namespace
    return obj


def test_two_tenants_appsets_of_one_name_are_two_baselines() -> None:
    index = ApplicationIndex(home="argocd", scopes=("argocd", "team-a", "team-b"))
    index.listed([tenant_app("web-a", "team-a", server="https://a")], "team-a")
    index.listed([tenant_app("web-a", "team-b", server="https://b")], "team-b")  # same Application name too
    assert not index.synced()
    index.listed([app("web-a", appset="web", server="https://home")], "argocd")
    assert index.synced()
    assert index.targets("team-a/web") == {Target("https://a")}
    assert index.targets("team-b/web") == {Target("https://b")}
    assert index.targets("web") == {Target("https://home")}
    assert index.uid("team-b/web") == "uid-team-b-web"
    index.listed([], "team-b")  # a relist of team-b leaves team-a's alone
    assert index.targets("team-b/web") == frozenset() and index.targets("team-a/web") == {Target("https://a")}


def test_confirm_reads_the_appsets_own_namespace() -> None:
    index = ApplicationIndex(home="argocd", scopes=("*",))
    asked: list[str] = []

    def read(namespace: str) -> list[dict[str, Any]]:
        asked.append(namespace)
        return [tenant_app("web-1", "team-a", server="https://a"), tenant_app("web-1", "team-b", server="https://b")]

    index.read = read
    assert index.confirm("team-a/web") == {Target("https://a")}
    assert asked == ["team-a"]
