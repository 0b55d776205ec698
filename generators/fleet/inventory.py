"""The set of cluster Secrets the fleet knows, fed by a source (the Kubernetes watch, or files).

Sources run wherever they like (a thread for the blocking Kubernetes client) but hand every change to
the event loop, so ``Inventory`` itself is only touched from one thread. A Secret that stops parsing
keeps its last good version (dropping it would make ApplicationSets delete that cluster's
Applications) and is reported as invalid until it is fixed or deleted.

No object can stop a listing: whatever parsing one Secret raises (ours or not) makes that Secret
invalid, and whatever a listener raises is logged, so a full listing always ends with the inventory
listed. One bad Secret once kept ``synced`` false (every ApplicationSet answered 503) until a relist.

With ``in_cluster`` (Argo CD's ``cluster.inClusterEnabled``, on unless argocd-cm says ``"false"``) the
inventory also holds Argo CD's implicit ``in-cluster`` entry whenever no Secret names
``https://kubernetes.default.svc``, as Argo CD lists it: a Secret for that server takes its place. It is
added only once the Secrets are listed, so a Secret for it is never mistaken for its departure.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from argocd_lifecycle.bugs import describe
from argocd_lifecycle.cluster_secrets import (
    IMPLICIT_IN_CLUSTER,
    ClusterSecret,
    InvalidClusterSecret,
    SecretWire,
    implicit_in_cluster,
    is_cluster_secret,
    parse_secret,
)
from argocd_lifecycle.model import IN_CLUSTER_SERVER

log = logging.getLogger(__name__)


class ChangeKind(StrEnum):
    UPSERT = "upsert"
    DELETE = "delete"
    INVALID = "invalid"


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    secret_name: str
    secret: ClusterSecret | None = None
    problem: str = ""
    #: the raw object, for reporting an invalid Secret (an Event needs its uid)
    namespace: str = ""
    uid: str = ""


class Inventory:
    """Parsed cluster Secrets by Secret name, plus the sync state the service needs (FleetView)."""

    def __init__(self, default_namespace: str = "", *, in_cluster: bool = False) -> None:
        self.default_namespace = default_namespace
        #: list Argo CD's implicit in-cluster entry while no Secret names its server
        self.in_cluster = in_cluster
        self.secrets: dict[str, ClusterSecret] = {}
        self.invalid: dict[str, str] = {}
        self._versions: dict[str, str] = {}
        self._listeners: list[Callable[[Change], None]] = []
        self._listed = False
        self._broken_since: float | None = None

    def subscribe(self, listener: Callable[[Change], None]) -> None:
        self._listeners.append(listener)

    def _emit(self, change: Change) -> None:
        for listener in self._listeners:
            try:
                listener(change)
            except Exception as exc:  # a listener's bug must not stop the listing or the other listeners
                log.error("cluster Secret %s: a %s change was not taken in: %s", change.secret_name, change.kind,
                          describe(exc))  # fmt: skip

    # -- sync state -------------------------------------------------------------------------------
    def synced(self) -> bool:
        return self._listed

    def stale_seconds(self) -> float:
        return 0.0 if self._broken_since is None else time.monotonic() - self._broken_since

    def mark_broken(self) -> None:
        if self._broken_since is None:
            self._broken_since = time.monotonic()

    def mark_healthy(self) -> None:
        self._broken_since = None

    # -- changes ----------------------------------------------------------------------------------
    def apply(self, obj: SecretWire, *, where: str = "") -> None:
        """An added or modified Secret (ignored unless it carries the cluster label)."""
        meta = obj.get("metadata")
        meta = meta if isinstance(meta, Mapping) else {}
        name = str(meta.get("name") or "")
        if name == IMPLICIT_IN_CLUSTER:
            return  # not a Secret name (only a file source could spell it): the implicit entry's key
        if not is_cluster_secret(obj):
            if name in self.secrets or name in self.invalid:
                self.delete(name)  # the label was removed: no longer a cluster
            return
        version = str(meta.get("resourceVersion") or "")
        if version and self._versions.get(name) == version:
            return
        self._versions[name] = version
        namespace = str(meta.get("namespace") or self.default_namespace)
        if not meta.get("namespace"):
            obj = {**obj, "metadata": {**meta, "namespace": namespace}}
        try:
            secret = parse_secret(obj, where=where)
        except InvalidClusterSecret as exc:
            self._invalid(name, exc.message, namespace, str(meta.get("uid") or ""))
            return
        except Exception as exc:  # a parser bug is this Secret's problem, not the listing's
            problem = f"{where or f'Secret {namespace}/{name}'}: cannot be read ({describe(exc)})"
            self._invalid(name, problem, namespace, str(meta.get("uid") or ""))
            return
        self.invalid.pop(name, None)
        if self.secrets.get(name) == secret:
            return
        self.secrets[name] = secret
        self._implicit()  # first: a Secret for the in-cluster server replaces the implicit entry
        self._emit(Change(ChangeKind.UPSERT, name, secret))

    def _invalid(self, name: str, problem: str, namespace: str, uid: str) -> None:
        if self.invalid.get(name) != problem:
            log.warning("skipping cluster Secret: %s", problem)
            self.invalid[name] = problem
            self._emit(Change(ChangeKind.INVALID, name, problem=problem, namespace=namespace, uid=uid))

    def delete(self, name: str) -> None:
        self._versions.pop(name, None)
        was_invalid = self.invalid.pop(name, None) is not None
        secret = self.secrets.pop(name, None)
        if secret is not None or was_invalid:
            self._emit(Change(ChangeKind.DELETE, name, secret))
        self._implicit()

    def _implicit(self) -> None:
        """Add or drop the implicit in-cluster entry as the listed Secrets require (see the module doc)."""
        if not self.in_cluster or not self._listed:
            return
        declared = any(s.server == IN_CLUSTER_SERVER for k, s in self.secrets.items() if k != IMPLICIT_IN_CLUSTER)
        held = self.secrets.get(IMPLICIT_IN_CLUSTER)
        if declared and held is not None:
            del self.secrets[IMPLICIT_IN_CLUSTER]
            self._emit(Change(ChangeKind.DELETE, IMPLICIT_IN_CLUSTER, held))
        elif not declared and held is None:
            entry = implicit_in_cluster(self.default_namespace)
            self.secrets[IMPLICIT_IN_CLUSTER] = entry
            self._emit(Change(ChangeKind.UPSERT, IMPLICIT_IN_CLUSTER, entry))

    def replace_all(self, objs: Iterable[tuple[SecretWire, str]]) -> None:
        """A full listing ``(object, where)``: apply it and drop whatever it no longer holds."""
        seen: set[str] = set()
        for obj, where in objs:
            self.apply(obj, where=where)
            meta = obj.get("metadata")
            seen.add(str((meta if isinstance(meta, Mapping) else {}).get("name") or ""))
        for name in sorted((set(self.secrets) | set(self.invalid)) - seen - {IMPLICIT_IN_CLUSTER}):
            self.delete(name)
        # Listed only once every object is taken in, which nothing an object holds can stop (apply
        # turns any failure into that Secret's problem). Not in a ``finally``: were a bug to end the
        # loop early, a view missing the rest would be served as whole and their Applications deleted;
        # the list/watch reports such a failure as a broken watch instead, and lists again.
        self._listed = True
        self.mark_healthy()
        self._implicit()
