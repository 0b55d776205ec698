"""The contract between the fleet engine (who knows the fleet) and the HTTP service (who serves it).

The engine (``FleetEngine`` in engine.py) implements ``FleetView``; the service (generators/service)
only reads it. The mass-drop guard also needs to know what each ApplicationSet has now (``Baseline``:
the Applications cache in Kubernetes mode, the state file with ``--clusters-from``) and where to say
that it holds an answer (``HoldReporter``: an Event, a receiver message, a refresh).

The dependency runs one way: generators/service imports this module and nothing else
of generators/fleet, and generators/fleet never imports generators/service (a test checks both). Both
sides and their tests build against these types, so either can change inside without touching the other.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from argocd_lifecycle.model import Phase


@dataclass(frozen=True)
class ClusterState:
    """One cluster as the fleet knows it now (domain value; wire shapes live in the service)."""

    name: str
    server: str
    secret_name: str
    project: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    phase: Phase = Phase.PENDING
    #: when the current phase was entered (changes only on a transition)
    phase_since: datetime | None = None
    #: true once the cluster passed the readiness gate; stays true through Degraded/Unreachable
    ready: bool = False
    message: str = ""
    #: ``v1.29.3`` as the cluster's /version reports it, or "" before the first good probe
    git_version: str = ""
    #: ``1.33`` while Upgrading (from the upgrade-to annotation or the control plane), else ""
    upgrade_to: str = ""
    #: false while the node facts are unknown (not probed yet, past a bound of the node list, or the
    #: credentials may not list nodes): readiness then rests on /version and /readyz
    nodes_known: bool = False
    #: why the nodes are unknown although the cluster answered, "" otherwise
    nodes_unknown: str = ""
    nodes: int = 0
    nodes_ready: int = 0
    certificate_expires_at: datetime | None = None
    #: Argo CD's implicit in-cluster entry (no Secret): only an input without a label selector lists it
    implicit: bool = False


class FleetView(Protocol):
    """Read-only view of the fleet that the HTTP service serves from."""

    def clusters(self) -> list[ClusterState]:
        """Every known cluster, sorted by name."""
        ...

    def synced(self) -> bool:
        """True once the inventory has listed the cluster Secrets at least once."""
        ...

    def stale_seconds(self) -> float:
        """How long the Secret watch has been broken (0.0 while it is healthy)."""
        ...

    def departed(self) -> frozenset[str]:
        """Servers of clusters that left explicitly: their Secret was deleted while they were
        Decommissioning, so leaving an answer is no drop. A Secret deleted without a decommission is
        not here. Recent ones only (bounded memory)."""
        ...


@dataclass(frozen=True)
class Target:
    """A cluster that an ApplicationSet's Applications deploy to now: what Argo CD would delete.

    Identified by server *and* name, as the guard compares it with an answer: the Application Argo
    CD made for one cluster name goes when that name leaves the answer, whoever else has the server."""

    server: str
    #: the cluster's name when known, else "" (then only the server identifies it)
    name: str = ""
    #: the Application records its cluster as Decommissioning (the phase the template stamps)
    departing: bool = False

    @property
    def label(self) -> str:
        return self.name or self.server


#: the input parameter naming the ApplicationSet's namespace, where its name alone is ambiguous
NAMESPACE_PARAMETER = "applicationSetNamespace"


def qualified(namespace: str, name: str, home: str) -> str:
    """An ApplicationSet's key as the ``argocd`` CLI writes an Application: ``name`` in the Argo CD
    namespace ``home``, ``namespace/name`` elsewhere (a name holds no ``/``, so the key is unambiguous)."""
    return name if not namespace or namespace == home else f"{namespace}/{name}"


def split_key(key: str, home: str) -> tuple[str, str]:
    """(namespace, name) of a key ``qualified`` made."""
    namespace, _, name = key.rpartition("/")
    return namespace or home, name


@dataclass(frozen=True)
class Placement:
    """Where the ApplicationSet of a request lives, found by its name (Argo CD sends no namespace).

    ``problem`` is set when it cannot be placed with certainty (the name in several watched namespaces,
    or in none): then nothing may be answered, since its Applications cannot be told apart."""

    #: the key the guard and the reporter know it by (``qualified``)
    key: str
    namespace: str
    name: str
    #: ``spec.template.spec.project`` when a plain string, else ""
    project: str = ""
    problem: str = ""


class Baseline(Protocol):
    """What each ApplicationSet has now, compared with every answer by the mass-drop guard."""

    def place(self, name: str, namespace: str) -> Placement:
        """Where the ApplicationSet named ``name`` lives (``namespace``: the input parameter
        ``applicationSetNamespace``, "" when not given)."""
        ...

    def synced(self) -> bool:
        """True once it can be trusted (the Applications were listed, the state file was read)."""
        ...

    def stale_seconds(self) -> float:
        """How long its source has been broken (0.0 while healthy)."""
        ...

    def targets(self, appset: str) -> frozenset[Target]:
        """The clusters the ApplicationSet's Applications target now (empty for an unknown one)."""
        ...

    def confirm(self, appset: str) -> frozenset[Target]:
        """``targets`` from a fresh read, just before a loss is given: a cache may not have seen the
        Applications Argo CD created a moment ago, and those would go too. Raises LifecycleError."""
        ...

    def answered(self, appset: str, clusters: Iterable[ClusterState]) -> None:
        """An answer was given: a baseline that cannot see Applications remembers it instead."""
        ...


@dataclass(frozen=True)
class Hold:
    """An answer the guard refused: the ApplicationSet, the clusters it would lose, the message."""

    appset: str
    lost: tuple[Target, ...]
    total: int
    message: str
    #: the ApplicationSet's project (``Placement.project``), "" when not a plain string
    project: str = ""


class HoldReporter(Protocol):
    """Where a held answer is made visible; every call returns at once (work runs in the background)."""

    def held(self, hold: Hold) -> None:
        """An answer to ``hold.appset`` was refused (every refusal; telling each episode once is the
        reporter's business, across replicas)."""
        ...

    def released(self, appset: str) -> None:
        """The ApplicationSet got an answer again after a held episode."""
        ...

    def recheck(self, appset: str, after: float) -> None:
        """Ask the ApplicationSet to call again in ``after`` seconds (a drop that is settling)."""
        ...


#: ApplicationSets a remembered baseline keeps (least recently answered forgotten first)
MAX_REMEMBERED = 4096


class RememberedAnswers:
    """The baseline where Applications cannot be seen (``--clusters-from``, tests): the clusters of
    the last answer given to each ApplicationSet, whatever its input, so an input edit or another
    input cannot start from nothing. ``on_change`` persists it (the state file)."""

    def __init__(self, on_change: Callable[[], None] | None = None, *, home: str = "argocd") -> None:
        self.home = home
        self._last: OrderedDict[str, frozenset[Target]] = OrderedDict()
        self._given: dict[str, Iterable[ClusterState]] = {}  # the answer object last remembered, by identity
        self._on_change = on_change

    def synced(self) -> bool:
        return True

    def stale_seconds(self) -> float:
        return 0.0

    def place(self, name: str, namespace: str) -> Placement:
        """Without Kubernetes there are no namespaces to search: the one named, else the Argo CD one."""
        namespace = namespace or self.home
        return Placement(qualified(namespace, name, self.home), namespace, name)

    def targets(self, appset: str) -> frozenset[Target]:
        return self._last.get(appset, frozenset())

    def confirm(self, appset: str) -> frozenset[Target]:
        return self.targets(appset)  # this memory is the truth, there is nothing fresher to read

    def deploys_to(self, server: str) -> bool:
        """Whether the last answer to some ApplicationSet held ``server``."""
        return any(t.server == server for targets in self._last.values() for t in targets)

    def answered(self, appset: str, clusters: Iterable[ClusterState]) -> None:
        if self._given.get(appset) is clusters:  # the same cached answer again: nothing new to remember
            self._last.move_to_end(appset)
            return
        self._given[appset] = clusters
        targets = frozenset(Target(c.server, c.name) for c in clusters)
        changed = self._last.get(appset) != targets
        self._last[appset] = targets
        self._last.move_to_end(appset)
        while len(self._last) > MAX_REMEMBERED:
            forgotten, _ = self._last.popitem(last=False)
            self._given.pop(forgotten, None)
        if changed and self._on_change is not None:
            self._on_change()

    def dump(self) -> dict[str, list[dict[str, str]]]:
        return {appset: [{"server": t.server, "name": t.name} for t in sorted(ts, key=lambda t: t.server)]
                for appset, ts in self._last.items()}  # fmt: skip

    def load(self, data: Mapping[str, Iterable[Target]]) -> None:
        for appset, targets in data.items():
            self._last[appset] = frozenset(targets)
