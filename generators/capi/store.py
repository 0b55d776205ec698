"""The CAPI objects of the watched namespaces, as parsed values, and which Clusters each change touches.

Fed by one list/watch per (kind, namespace) on the event loop's thread. Each table keeps the parsed
value of every object (or the one-line problem of an object that does not parse) and says which CAPI
Clusters an add, change, delete or relist touched, so the reconciler looks only at those. Secrets other
than ``<cluster>-kubeconfig`` (CAPI's CA and etcd key pairs carry the same label) are dropped as they
arrive and never kept.

No object can stop a listing: whatever reading one raises (our ``LifecycleError`` or anything else)
makes it a ``Problem`` of its own, on which nothing is decided, so a relist always takes in every
object and marks its scope listed. A kubeconfig with one non-ASCII character once raised past the
parser, left the scope unlisted and froze registration, upgrades and teardown of every Cluster, even
after the Secret was deleted.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from argocd_lifecycle.bugs import describe
from argocd_lifecycle.cluster_secrets import SecretWire
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.generators.capi.kubeconfig import Endpoint, parse_kubeconfig
from argocd_lifecycle.generators.capi.names import (
    CLUSTER_NAME_LABEL,
    CLUSTERS,
    KUBEADM_CONTROL_PLANES,
    KUBECONFIG_SUFFIX,
    MACHINE_DEPLOYMENTS,
    MACHINE_POOLS,
)
from argocd_lifecycle.generators.capi.objects import (
    CapiCluster,
    ClusterKey,
    ControlPlane,
    WorkerGroup,
    parse_cluster,
    parse_control_plane,
    parse_worker_group,
)

log = logging.getLogger(__name__)
T = TypeVar("T")
Obj = Mapping[str, Any]


@dataclass(frozen=True)
class Problem:
    """An object that does not parse: the message, and the Cluster it belongs to when that is known."""

    message: str
    owner: ClusterKey | None = None


Ident = tuple[str, str]


@dataclass(frozen=True)
class ScopeState:
    """One (kind, namespace) watch: whether it has listed, and for how long it has been broken."""

    what: str
    listed: bool
    broken_seconds: float = 0.0


@dataclass
class Table(Generic[T]):
    """One kind: ``parse`` raw -> value (None: not ours to keep); ``owners`` value -> the Clusters it touches.

    ``on_change(before, after)`` is called for every entry replaced (indexes outside the table),
    ``on_problem(obj, message)`` for every object that does not parse (the source records a Warning),
    and ``by_owner`` indexes the values by their owners (kept when ``indexed``), so that a lookup per
    Cluster costs the same with 2,000 Clusters as with one."""

    kind: str
    parse: Callable[[Obj], T | None]
    owners: Callable[[T], Iterable[ClusterKey]]
    problem_owner: Callable[[Obj], ClusterKey | None] = lambda _: None
    indexed: bool = False
    on_change: Callable[[T | Problem | None, T | Problem | None], None] | None = None
    on_problem: Callable[[Obj, str], None] | None = None
    entries: dict[Ident, T | Problem] = field(default_factory=dict)
    by_owner: dict[ClusterKey, set[Ident]] = field(default_factory=dict)
    listed: set[str] = field(default_factory=set)
    #: scope -> since when (monotonic) its watch has been broken
    broken: dict[str, float] = field(default_factory=dict)

    def _replace(self, ident: Ident, after: T | Problem | None) -> set[ClusterKey]:
        """Put ``after`` (None: nothing) where ``ident`` was; the Clusters the old and the new touch."""
        before = self.entries.pop(ident, None)
        if after is not None:
            self.entries[ident] = after
        old, new = self._touched(before), self._touched(after)
        if self.indexed:
            for key in old - new:
                held = self.by_owner.get(key, set())
                held.discard(ident)
                if not held:
                    self.by_owner.pop(key, None)
            for key in new:
                self.by_owner.setdefault(key, set()).add(ident)
        if self.on_change is not None:
            self.on_change(before, after)
        return old | new

    def _touched(self, entry: T | Problem | None) -> set[ClusterKey]:
        if entry is None:
            return set()
        if isinstance(entry, Problem):
            return {entry.owner} if entry.owner else set()
        return set(self.owners(entry))

    def _read(self, obj: Obj) -> T | Problem | None:
        try:
            return self.parse(obj)
        except LifecycleError as exc:
            message = exc.message
        except Exception as exc:  # a parser bug is this object's problem, never the listing's
            namespace, name = _ident(obj)
            message = f"{self.kind} {namespace}/{name}: cannot be read ({describe(exc)})"
        log.warning("skipping %s: %s", self.kind, message)
        try:
            owner = self.problem_owner(obj)
        except Exception:  # an owner we cannot tell: the problem is still kept and reported
            owner = None
        if self.on_problem is not None:
            self.on_problem(obj, message)
        return Problem(message, owner)

    def upsert(self, obj: Obj) -> set[ClusterKey]:
        return self._replace(_ident(obj), self._read(obj))

    def problems(self) -> int:
        """How many objects of this kind do not parse now."""
        return sum(isinstance(e, Problem) for e in self.entries.values())

    def mark_broken(self, scope: str) -> None:
        self.broken.setdefault(scope, time.monotonic())

    def delete(self, obj: Obj) -> set[ClusterKey]:
        return self._replace(_ident(obj), None)

    def relist(self, scope: str, items: Iterable[Obj]) -> set[ClusterKey]:
        """A full listing of one namespace ("" = every namespace): replaces what that scope held.

        Listed once every object is taken in, which no object can stop (``_read`` makes any failure
        that object's ``Problem``). Not in a ``finally``: a listing cut short by a bug of ours would
        then count as whole, and a Cluster it had not reached yet, whose Secret we wrote, would look
        deleted and be decommissioned; the list/watch reports the bug as a broken watch instead."""
        touched: set[ClusterKey] = set()
        stale = {ident for ident in self.entries if not scope or ident[0] == scope}
        for obj in items:
            stale.discard(_ident(obj))
            touched |= self.upsert(obj)
        for ident in stale:
            touched |= self._replace(ident, None)
        self.listed.add(scope)
        self.broken.pop(scope, None)
        return touched

    def values(self) -> Iterable[T]:
        return (e for e in self.entries.values() if not isinstance(e, Problem))

    def owned_by(self, key: ClusterKey) -> list[T]:
        """The values owned by ``key`` (an ``indexed`` table)."""
        found = (self.entries.get(ident) for ident in self.by_owner.get(key, ()))
        return [e for e in found if e is not None and not isinstance(e, Problem)]


def _ident(obj: Obj) -> tuple[str, str]:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    return (str(meta.get("namespace") or ""), str(meta.get("name") or ""))


def _kubeconfig_owner(obj: Obj) -> ClusterKey | None:
    """``<cluster>-kubeconfig`` carrying CAPI's cluster-name label for that cluster; None for other Secrets."""
    namespace, name = _ident(obj)
    cluster = ((obj.get("metadata") or {}).get("labels") or {}).get(CLUSTER_NAME_LABEL)
    if name.endswith(KUBECONFIG_SUFFIX) and cluster == name.removesuffix(KUBECONFIG_SUFFIX):
        return ClusterKey(namespace, cluster)
    return None


@dataclass(frozen=True)
class Kubeconfig:
    cluster: ClusterKey
    endpoint: Endpoint


def _parse_kubeconfig(obj: Obj) -> Kubeconfig | None:
    owner = _kubeconfig_owner(obj)
    if owner is None:
        return None  # a CA or etcd key pair, or someone else's Secret: forget it at once
    namespace, name = _ident(obj)
    secret: SecretWire = obj  # type: ignore[assignment]  # the API's Secret JSON
    return Kubeconfig(owner, parse_kubeconfig(secret, where=f"Secret {namespace}/{name}"))


class Store:
    def __init__(self) -> None:
        #: (namespace, KubeadmControlPlane name) -> the Clusters referencing it
        self._cp_users: dict[Ident, set[ClusterKey]] = {}
        self.clusters: Table[CapiCluster] = Table(
            "Cluster",
            parse_cluster,
            lambda c: [c.key],
            problem_owner=lambda o: ClusterKey(*_ident(o)),
            on_change=self._cluster_changed,
        )
        self.control_planes: Table[ControlPlane] = Table("KubeadmControlPlane", parse_control_plane, self._users)
        self.deployments: Table[WorkerGroup] = Table(
            "MachineDeployment", _group_parser(MACHINE_DEPLOYMENTS.kind), _group_owner, indexed=True
        )
        self.pools: Table[WorkerGroup] = Table(
            "MachinePool", _group_parser(MACHINE_POOLS.kind), _group_owner, indexed=True
        )
        self.kubeconfigs: Table[Kubeconfig] = Table(
            "kubeconfig Secret", _parse_kubeconfig, lambda k: [k.cluster], problem_owner=_kubeconfig_owner
        )
        self.tables: dict[str, Table[Any]] = {
            CLUSTERS.plural: self.clusters,
            KUBEADM_CONTROL_PLANES.plural: self.control_planes,
            MACHINE_DEPLOYMENTS.plural: self.deployments,
            MACHINE_POOLS.plural: self.pools,
            "secrets": self.kubeconfigs,
        }
        self._scopes: set[tuple[str, str]] = set()

    def expect(self, table: str, scope: str) -> None:
        """Register a (table, namespace) watch, so ``synced`` waits for its first listing."""
        self._scopes.add((table, scope))

    def synced(self) -> bool:
        """The Clusters are watched, every watch has listed and none is broken: only then may absence
        mean deletion."""
        if not any(table == CLUSTERS.plural for table, _ in self._scopes):
            return False
        return all(s in self.tables[t].listed and s not in self.tables[t].broken for t, s in self._scopes)

    def scope_states(self) -> list[ScopeState]:
        """Every watch registered, sorted: listed or not, and broken for how long (readiness)."""
        now = time.monotonic()
        states = []
        for plural, scope in sorted(self._scopes):
            table = self.tables[plural]
            since = table.broken.get(scope)
            what = f"{plural} in namespace {scope}"
            states.append(ScopeState(what, scope in table.listed, 0.0 if since is None else now - since))
        return states

    def _users(self, cp: ControlPlane) -> list[ClusterKey]:
        return sorted(self._cp_users.get((cp.namespace, cp.name), ()))

    def _cluster_changed(self, before: CapiCluster | Problem | None, after: CapiCluster | Problem | None) -> None:
        for entry, adding in ((before, False), (after, True)):
            if not isinstance(entry, CapiCluster) or not entry.kubeadm_control_plane:
                continue
            ref = (entry.key.namespace, entry.kubeadm_control_plane)
            if adding:
                self._cp_users.setdefault(ref, set()).add(entry.key)
            elif ref in self._cp_users:
                self._cp_users[ref].discard(entry.key)
                if not self._cp_users[ref]:
                    del self._cp_users[ref]

    # -- views for the reconciler ------------------------------------------------------------------
    def cluster(self, key: ClusterKey) -> CapiCluster | Problem | None:
        return self.clusters.entries.get((key.namespace, key.name))

    def control_plane(self, cluster: CapiCluster) -> ControlPlane | None:
        entry = self.control_planes.entries.get((cluster.key.namespace, cluster.kubeadm_control_plane))
        return entry if isinstance(entry, ControlPlane) else None

    def worker_groups(self, key: ClusterKey) -> list[WorkerGroup]:
        return sorted((*self.deployments.owned_by(key), *self.pools.owned_by(key)))

    def kubeconfig(self, key: ClusterKey) -> Kubeconfig | Problem | None:
        return self.kubeconfigs.entries.get((key.namespace, key.name + KUBECONFIG_SUFFIX))

    def cluster_keys(self) -> set[ClusterKey]:
        """Every Cluster we know of (parsed or not), and every Cluster a kubeconfig names."""
        return {ClusterKey(*ident) for ident in self.clusters.entries} | {k.cluster for k in self.kubeconfigs.values()}


def _group_parser(kind: str) -> Callable[[Obj], WorkerGroup]:
    return lambda obj: parse_worker_group(obj, kind)


def _group_owner(group: WorkerGroup) -> list[ClusterKey]:
    return [ClusterKey(group.namespace, group.cluster)] if group.cluster else []
