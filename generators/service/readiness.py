"""Readiness (``GET /readyz``): whether this replica's view of what it serves and decides from is whole.

A replica is ready once every watch it depends on has listed, and while none has been broken for longer
than ``--max-staleness``: the cluster Secrets and the Applications on every replica (the answers come
from them, and past that bound they would be 503 anyway, so taking the replica out of the Service can
only move Argo CD to one that answers), plus, on the leader, the Cluster API watches (only the leader
reconciles: a follower failing for them would take answers away and fix nothing). ``/healthz`` stays
liveness: a process that serves is alive, whatever its watches say, and restarting it would not
mend an API server that is down.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol


class WatchState(Protocol):
    """One watch as readiness sees it (the CAPI store's ``ScopeState`` is one)."""

    @property
    def what(self) -> str: ...

    @property
    def listed(self) -> bool: ...

    @property
    def broken_seconds(self) -> float: ...


@dataclass(frozen=True)
class Watch:
    what: str
    listed: bool
    broken_seconds: float = 0.0


#: more watches readiness depends on (the CAPI source's, on the leader), read at every probe
Watches = Callable[[], Iterable[WatchState]]


def problems(watches: Iterable[WatchState], max_staleness: float) -> list[str]:
    """Why this replica is not ready, one line per watch; empty when it is."""
    found = []
    for watch in watches:
        if not watch.listed:
            found.append(f"the {watch.what} watch has not listed yet")
        elif watch.broken_seconds > max_staleness:
            found.append(
                f"the {watch.what} watch has been broken for {watch.broken_seconds:.0f}s "
                f"(more than --max-staleness {max_staleness:g}s)"
            )
    return found
