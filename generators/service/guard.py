"""The mass-drop guard: refuse an answer that would make Argo CD delete too many Applications at once.

An ApplicationSet deletes the Applications of every cluster that leaves its generator's answer. So
each answer is compared with what the ApplicationSet has *now* (the ``Baseline``: the clusters its
Applications target, read from Kubernetes; without Kubernetes, the last answer it was given, kept in
the state file). Nothing about the request, the process or the replica enters that comparison, so an
edited selector or ``minVersion``, a restart, or the other replica start from the same baseline.

Clusters are compared by server *and* name: Argo CD's ApplicationSet deletes the Application made for
a cluster name that leaves its answer even when another cluster with that server takes its place, so
relabelling clusters away while Secrets of other names carry their servers (or duplicating a server)
is a loss like any other. A target whose name is unknown (its Application names a server no cluster
is known by) is matched by server alone.

A cluster the answer lacks is *lost* unless its departure is explicit: its Secret was deleted while
it was Decommissioning (``FleetView.departed()``, or the Application still records the cluster phase
Decommissioning), or it is Decommissioning now and the input drops decommissioned clusters. A Secret
deleted without a decommission is a loss like any other.

- An answer that loses nothing is given.
- One that loses clusters waits until the same loss has been seen for ``settle`` seconds (503
  meanwhile, and a refresh is asked for when it is over), so a batch of deletions or relabellings
  that the watch delivers one by one, or a batch being undone, is judged as a whole, not as many
  small drops.
- Then, losing more than ``max_drop_percent`` of the targeted clusters is refused with 503 (Argo CD
  keeps every Application) until the clusters come back or the input sets ``allowMassDrop: true``;
  a smaller loss is given, once a fresh read of the targets (``Baseline.confirm``) says the same: an
  Application Argo CD created a moment ago, not yet in the cache, would be deleted with the rest.
  ``max_drop_percent`` 100 turns the guard off.

A refused ApplicationSet is *held*: every refusal goes to the HoldReporter, which tells each held
episode once (an Event on the ApplicationSet, a receiver message) whichever replica refused; the first
answer after a refusal ends the episode.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from argocd_lifecycle.generators.fleet.view import Hold, HoldReporter, Target
from argocd_lifecycle.generators.service.errors import Unavailable

log = logging.getLogger(__name__)

MAX_KEYS = 4096
#: clusters named in a message; the rest are counted
MAX_NAMED = 10
DEFAULT_SETTLE = 5.0


class MassDropRefused(Unavailable):
    """The answer would drop more clusters than allowed (503): the ApplicationSet is held."""


class DropSettling(Unavailable):
    """The answer drops clusters that left moments ago (503 until the loss has settled)."""


Identity = tuple[str, str]  # (server, name)


@dataclass(frozen=True)
class Fleet:
    """What the guard needs to know about the clusters now, for one answer."""

    #: (server, name) of every cluster in the answer
    answered: Collection[Identity]
    #: (server, name) of every cluster known now, and of those Decommissioning now
    known: Collection[Identity]
    decommissioning: Collection[Identity]
    #: servers of clusters whose Secret was deleted while Decommissioning
    departed: Collection[str]
    drop_decommissioned: bool = False

    @cached_property
    def _servers(self) -> dict[str, frozenset[str]]:
        """The servers of each collection, for targets whose name is unknown."""
        return {
            field: frozenset(server for server, _ in getattr(self, field))
            for field in ("answered", "known", "decommissioning")
        }

    def holds(self, field: str, target: Target) -> bool:
        """Whether collection ``field`` holds the target: by server and name, by server when unnamed."""
        if target.name:
            return (target.server, target.name) in getattr(self, field)
        return target.server in self._servers[field]


def lost(targets: Collection[Target], fleet: Fleet) -> list[Target]:
    """The targets the answer would make Argo CD delete, explicit departures left out."""
    out = []
    for t in targets:
        if fleet.holds("answered", t):
            continue
        if fleet.holds("known", t):
            if fleet.drop_decommissioned and fleet.holds("decommissioning", t):
                continue  # Decommissioning and dropped on request
        elif t.server in fleet.departed or t.departing:
            continue  # the Secret went after a decommission
        out.append(t)
    return sorted(out, key=lambda t: (t.label, t.server))


def _named(targets: list[Target]) -> str:
    shown = ", ".join(t.label for t in targets[:MAX_NAMED])
    return shown + (f" and {len(targets) - MAX_NAMED} more" if len(targets) > MAX_NAMED else "")


class MassDropGuard:
    def __init__(
        self,
        max_drop_percent: float,
        *,
        settle: float = DEFAULT_SETTLE,
        reporter: HoldReporter | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_drop_percent, self.settle, self.reporter, self.clock = max_drop_percent, settle, reporter, clock
        #: per ApplicationSet: since when its loss has been the same, and that loss; the loss last given
        self._pending: OrderedDict[str, tuple[float, frozenset[Target]]] = OrderedDict()
        self._given: dict[str, frozenset[Target]] = {}
        self._held: set[str] = set()
        self._seen: OrderedDict[str, None] = OrderedDict()

    def held(self) -> frozenset[str]:
        return frozenset(self._held)

    def check(
        self,
        appset: str,
        targets: Collection[Target],
        fleet: Fleet,
        *,
        allow: bool,
        confirm: Callable[[], Collection[Target]] | None = None,
        project: str = "",
    ) -> None:
        """Return when the answer may be given; raise DropSettling or MassDropRefused when not.

        ``confirm`` reads the targets afresh; it is called once before a loss is given. ``project`` (the
        ApplicationSet's) goes with a hold to the reporter, for the receiver's routes."""
        if self.max_drop_percent >= 100 or allow:
            return self._answer(appset)
        losing = lost(targets, fleet)
        if not losing:
            return self._answer(appset)
        if frozenset(losing) <= self._given.get(appset, frozenset()):
            return self._answer(appset, keep=True)  # given already; Argo CD is deleting those Applications
        now = self.clock()
        first, seen = self._pending.get(appset, (now, frozenset()))
        if seen != frozenset(losing):  # the loss grew or shrank: a batch is still under way
            first = now
        self._pending[appset] = (first, frozenset(losing))
        self._pending.move_to_end(appset)
        _bound(self._pending)
        waited = now - first
        if waited < self.settle:
            if self.reporter is not None:
                self.reporter.recheck(appset, self.settle - waited + 0.5)
            raise DropSettling(
                f"mass-drop guard: ApplicationSet {appset!r} would lose {len(losing)} of the {len(targets)} "
                f"clusters its Applications target ({_named(losing)}); waiting {self.settle:g}s for the cluster "
                "Secrets to settle so that the change is judged as a whole"
            )
        percent = 100.0 * len(losing) / len(targets)
        if percent <= self.max_drop_percent and confirm is not None:
            fresh = confirm()
            again = lost(fresh, fleet)
            if again != losing:  # Argo CD made or removed Applications the cache had not seen: judge again
                self._pending.pop(appset, None)
                return self.check(appset, fresh, fleet, allow=allow, project=project)
        if percent <= self.max_drop_percent:
            self._given[appset] = frozenset(losing)
            log.info("mass-drop guard: ApplicationSet %r drops %s (%.0f%%)", appset, _named(losing), percent)
            return self._answer(appset, keep=True)
        message = (
            f"mass-drop guard: holding ApplicationSet {appset!r}: this answer would drop {len(losing)} of the "
            f"{len(targets)} clusters its Applications target ({percent:.0f}% > --max-drop-percent "
            f"{self.max_drop_percent:g}): {_named(losing)}. Argo CD would delete their Applications, so it "
            "keeps them until the clusters come back (restore their Secrets or labels, or revert the input). "
            "A cluster that leaves on purpose is decommissioned first: annotate its Secret "
            "argocd-lifecycle.io/decommission=true, wait for phase Decommissioning, then delete the Secret. "
            "To accept this drop, set allowMassDrop: true in the generator's input parameters"
        )
        self._held.add(appset)
        if self.reporter is not None:  # every refusal: the reporter tells each episode once, whoever refused
            self.reporter.held(Hold(appset, tuple(losing), len(targets), message, project))
        raise MassDropRefused(message)

    def _answer(self, appset: str, *, keep: bool = False) -> None:
        self._pending.pop(appset, None)
        if not keep:
            self._given.pop(appset, None)
        first = appset not in self._seen
        if first:
            self._seen[appset] = None
            _bound(self._seen)
        if appset in self._held:
            self._held.discard(appset)
            log.info("mass-drop guard: ApplicationSet %r is answered again", appset)
        elif not first:
            return
        if self.reporter is not None:
            # also at a replica's first answer: a mark a replica that died left behind is removed
            self.reporter.released(appset)


def _bound(memory: OrderedDict[str, Any]) -> None:
    while len(memory) > MAX_KEYS:
        memory.popitem(last=False)
