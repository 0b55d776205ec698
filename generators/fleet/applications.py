"""The Applications of every watched namespace, by the ApplicationSet that owns them: the guard's baseline.

An ApplicationSet deletes the Applications of every cluster that leaves its generator's answer, so
what an answer can destroy is exactly the set of clusters its Applications target now. That set is
read from Kubernetes (a list + watch, list_watch.py, not a call per request), so it is the same for
every replica, after every restart, and whatever input the ApplicationSet sends: none of those can
start the guard from an empty memory. An Application counts for the ApplicationSets named in its
``ownerReferences``; one being deleted no longer counts (it is going anyway). An ApplicationSet and
its Applications are in the same namespace (Argo CD creates them there), so an Application counts for
the ApplicationSet of its owner's name *in its own namespace*: ``team-a/web`` and ``team-b/web`` are
two ApplicationSets, keyed as ``view.qualified`` writes them (``web`` in the Argo CD namespace).
Where the ApplicationSet of a request lives is not this module's business: ``appsets.py`` places it.

Only a few fields of each Application are kept: owners, destination, the cluster phase the
ApplicationSet template stamps (``argocd-lifecycle.io/cluster-phase``), which records a cluster that
was Decommissioning across restarts of the generator, and what a rollout reads (``AppStatus``: the
revision it targets, whether Argo CD compared that revision Synced and Healthy, a failure).

A target is a server *and* a name (the guard compares both). An Application that names only its
server gets the name of the cluster known by that server when it is first resolved, and keeps it
while its destination stays: a Secret of another name taking that server later (and the first one
relabelled away) must not make the Application look like that other cluster's. A generator started
while two Secrets share a server resolves it to one of them, as Argo CD itself does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.generators.fleet.list_watch import Consumer
from argocd_lifecycle.generators.fleet.namespaces import (
    ARGO_GROUP,
    ARGO_VERSION,
    EVERY,
    ScopeHealth,
    in_scope,
)
from argocd_lifecycle.generators.fleet.view import ClusterState, Target, qualified, split_key
from argocd_lifecycle.kube.client import Kube
from argocd_lifecycle.kube.lists import pages
from argocd_lifecycle.model import Annotation, Phase

GROUP, VERSION, PLURAL = ARGO_GROUP, ARGO_VERSION, "applications"
APPSET_KIND = "ApplicationSet"

#: (server, name) of a destination -> (server, name) with the missing half filled in when known
Identify = Callable[[str, str], tuple[str, str]]


@dataclass(frozen=True)
class AppStatus:
    """What a rollout needs of one Application (bounded strings; Argo CD's own values)."""

    application: str = ""
    #: ``spec.source.targetRevision`` (the first of ``spec.sources``), "" when unset
    revision: str = ""
    #: Synced, and compared at that very revision (the status is not the previous revision's)
    synced: bool = False
    healthy: bool = False
    #: "Degraded" or "sync failed" while either stops a rollout, else ""
    failing: str = ""


@dataclass(frozen=True)
class _App:
    namespace: str
    owners: tuple[tuple[str, str], ...]  # (ApplicationSet name, uid)
    server: str
    name: str
    departing: bool
    status: AppStatus = AppStatus()


def _source(spec: Any) -> dict[str, Any]:
    if not isinstance(spec, dict):
        return {}
    source = spec.get("source")
    if not isinstance(source, dict):
        sources = spec.get("sources")
        source = sources[0] if isinstance(sources, list) and sources else {}
    return source if isinstance(source, dict) else {}


def _walk(node: Any, *path: str) -> Any:
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _field(node: Any, *path: str) -> str:
    value = _walk(node, *path)
    return value[:256] if isinstance(value, str) else ""


def app_status(obj: dict[str, Any]) -> AppStatus:
    """The rollout's view of one Application (every field optional and of any type: hostile)."""
    revision = _field(_source(obj.get("spec")), "targetRevision")
    status = obj.get("status")
    compared = _field(_source(_walk(status, "sync", "comparedTo")), "targetRevision")
    synced = _field(status, "sync", "status") == "Synced" and compared == revision
    health = _field(status, "health", "status")
    failing = ""
    if health == "Degraded":
        failing = "Degraded"
    elif _field(status, "operationState", "phase") in ("Failed", "Error"):
        failing = "sync failed"
    # its name alone: rollouts are kept for the Argo CD namespace's ApplicationSets, whose Applications live there
    name = str((obj.get("metadata") or {}).get("name") or "")
    return AppStatus(name[:253], revision, synced, health == "Healthy", failing)


def _parse(obj: dict[str, Any]) -> _App | None:
    """The fields the guard needs; None for an Application that no longer counts (being deleted)."""
    meta = obj.get("metadata") or {}
    if meta.get("deletionTimestamp"):
        return None
    owners = tuple(
        (str(ref.get("name") or ""), str(ref.get("uid") or ""))
        for ref in meta.get("ownerReferences") or []
        if isinstance(ref, dict)
        and ref.get("kind") == APPSET_KIND
        and str(ref.get("apiVersion") or "").startswith(GROUP + "/")
    )
    if not owners:
        return None
    spec = obj.get("spec")
    destination = (spec.get("destination") if isinstance(spec, dict) else None) or {}
    if not isinstance(destination, dict):
        destination = {}
    annotations = meta.get("annotations") or {}
    return _App(
        namespace=str(meta.get("namespace") or ""),
        owners=owners,
        server=str(destination.get("server") or "").rstrip("/"),
        name=str(destination.get("name") or ""),
        departing=annotations.get(Annotation.CLUSTER_PHASE) == Phase.DECOMMISSIONING,
        status=app_status(obj),
    )


def _name(obj: dict[str, Any]) -> str:
    """The Application's identity, ``namespace/name``: two tenants' Applications may share a name."""
    meta = obj.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"


def _owners(app: _App) -> set[str]:
    return {owner for owner, _ in app.owners}


def _no_identify(server: str, name: str) -> tuple[str, str]:
    return server, name


class ApplicationIndex:
    """The Applications part of ``Baseline``, from the Applications cache; touched only on the event
    loop's thread. ``home`` is the Argo CD namespace, ``scopes`` what the sources list (``*``: all)."""

    def __init__(
        self, identify: Identify = _no_identify, *, home: str = "argocd", scopes: tuple[str, ...] = (EVERY,)
    ) -> None:
        self.identify, self.home = identify, home
        #: reads every Application of a namespace now (set by the wiring); None: the cache is all there is
        self.read: Callable[[str], list[dict[str, Any]]] | None = None
        self.health = ScopeHealth(scopes)
        self._apps: dict[str, _App] = {}
        #: Application name -> (its destination, the (server, name) it was first resolved to)
        self._pinned: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {}
        self._by_appset: dict[str, set[str]] = {}
        self._uids: dict[str, str] = {}
        self._servers: Counter[str] = Counter()

    # -- Baseline ----------------------------------------------------------------------------------
    def synced(self) -> bool:
        return self.health.synced()

    def stale_seconds(self) -> float:
        return self.health.stale_seconds()

    def targets(self, appset: str) -> frozenset[Target]:
        return self._targets((n, self._apps[n]) for n in self._by_appset.get(appset, ()))

    def confirm(self, appset: str) -> frozenset[Target]:
        """From a list of the Applications read now (blocking; a few per drop given, never per request)."""
        if self.read is None:
            return self.targets(appset)
        namespace, name = split_key(appset, self.home)
        apps = ((_name(obj), _parse(obj)) for obj in self.read(namespace))
        mine = (
            (n, a)
            for n, a in apps
            if a is not None and a.namespace == namespace and any(o == name for o, _ in a.owners)
        )
        return self._targets(mine)

    def _targets(self, apps: Iterable[tuple[str, _App]]) -> frozenset[Target]:
        found: set[Target] = set()
        for app_name, app in apps:
            server, name = self._identified(app_name, app)
            # a destination by name whose cluster is unknown is still something Argo CD would delete
            found.add(Target(server or f"name:{name}", name, app.departing))
        return frozenset(found)

    def _identified(self, app_name: str, app: _App) -> tuple[str, str]:
        destination = (app.server, app.name)
        pinned = self._pinned.get(app_name)
        if pinned is not None and pinned[0] == destination:
            return pinned[1]
        server, name = self.identify(app.server, app.name)
        if server and name:  # fully known: this is the cluster the Application was made for
            self._pinned[app_name] = (destination, (server, name))
        return server, name

    def statuses(self, appset: str) -> dict[tuple[str, str], list[AppStatus]]:
        """The Applications of ``appset`` by the (server, name) of the cluster each targets."""
        found: dict[tuple[str, str], list[AppStatus]] = {}
        for app_name in sorted(self._by_appset.get(appset, ())):
            app = self._apps[app_name]
            found.setdefault(self._identified(app_name, app), []).append(app.status)
        return found

    def answered(self, appset: str, clusters: Iterable[ClusterState]) -> None:
        """Nothing to remember: Argo CD's Applications are the memory."""

    def deploys_to(self, server: str) -> bool:
        """Whether any ApplicationSet's Application targets ``server`` now."""
        return self._servers.get(server.rstrip("/"), 0) > 0

    def uid(self, appset: str) -> str:
        """The ApplicationSet's uid as its Applications' owner references name it ("" when unknown)."""
        return self._uids.get(appset, "")

    # -- changes (the Consumer of each scope's list/watch) ---------------------------------------------
    def consumer(self, scope: str) -> Consumer:
        return Consumer(
            lambda items: self.listed(items, scope), self.upserted, self.deleted, lambda: self.health.broken(scope)
        )

    def listed(self, items: list[dict[str, Any]], scope: str = EVERY) -> None:
        """A listing of ``scope`` replaces what the index held of it, and nothing of other scopes."""
        for name in [n for n, a in self._apps.items() if in_scope(a.namespace, scope)]:
            self._forget(name)
        for obj in items:
            self.upserted(obj)
        for name in [n for n in self._pinned if n not in self._apps and in_scope(n.partition("/")[0], scope)]:
            del self._pinned[name]
        self.health.listed(scope)

    def upserted(self, obj: dict[str, Any]) -> None:
        name = _name(obj)
        self._forget(name)
        app = _parse(obj)
        if app is None:
            return
        self._apps[name] = app
        self._servers[app.server] += 1
        for owner, uid in app.owners:
            appset = qualified(app.namespace, owner, self.home)
            self._by_appset.setdefault(appset, set()).add(name)
            if uid:
                self._uids[appset] = uid

    def deleted(self, obj: dict[str, Any]) -> None:
        name = _name(obj)
        self._forget(name)
        self._pinned.pop(name, None)

    def broken(self) -> None:
        self.health.broken(EVERY)

    def _forget(self, name: str) -> None:
        app = self._apps.pop(name, None)
        if app is None:
            return
        self._servers[app.server] -= 1
        if self._servers[app.server] <= 0:
            del self._servers[app.server]
        for owner, _ in app.owners:
            appset = qualified(app.namespace, owner, self.home)
            names = self._by_appset.get(appset)
            if names is not None:
                names.discard(name)
                if not names:
                    del self._by_appset[appset]


def reader(kube: Kube) -> Callable[[str], list[dict[str, Any]]]:
    """Every Application of a namespace, listed now (paged), for ``ApplicationIndex.confirm``."""

    def read(namespace: str) -> list[dict[str, Any]]:
        listing = pages(
            kube, f"list Applications in {namespace}", kube.custom.list_namespaced_custom_object,
            GROUP, VERSION, namespace, PLURAL,
        )  # fmt: skip
        return [dict(obj) for obj in listing]

    return read
