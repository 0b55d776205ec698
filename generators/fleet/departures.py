"""The clusters whose Secret was deleted, by server, oldest first and bounded: whether each left
explicitly (it was Decommissioning before its Secret vanished), and whether it had passed the
readiness gate. What the engine asks when a Secret comes back, what ``FleetView.departed()`` answers,
and, with ``--clusters-from``, what the state file keeps across restarts."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

#: how many deleted clusters are remembered (by server: their name, whether they left explicitly)
MAX_DEPARTED = 4096


class Memory(Protocol):
    """What must survive a restart where no Kubernetes object can hold it (``--clusters-from``): the
    phase annotations the writer would have put on each Secret, and the explicit departures."""

    def phase(self, secret_name: str) -> Mapping[str, str]: ...

    def departures(self) -> Mapping[str, str]:
        """server -> name of the clusters that left explicitly."""
        ...

    def departed(self, server: str, name: str) -> None: ...

    def returned(self, server: str) -> None: ...

    def forget(self, secret_name: str) -> None: ...


@dataclass(frozen=True)
class Removal:
    name: str
    #: it was Decommissioning: an explicit departure
    explicit: bool
    #: it had passed the readiness gate
    admitted: bool = False


class Departures:
    def __init__(self, memory: Memory | None = None, *, bound: int = MAX_DEPARTED) -> None:
        self._memory, self._bound = memory, bound
        self._removed: OrderedDict[str, Removal] = OrderedDict()
        for server, name in (memory.departures() if memory else {}).items():
            self._removed[server] = Removal(name, explicit=True)

    def left(self, server: str, name: str, *, explicit: bool, admitted: bool) -> None:
        """The cluster at ``server`` lost its Secret (the newest departure; the oldest past the bound go)."""
        self._removed.pop(server, None)
        self._removed[server] = Removal(name, explicit, admitted=admitted)
        while len(self._removed) > self._bound:
            self._removed.popitem(last=False)
        if explicit and self._memory is not None:
            self._memory.departed(server, name)

    def returned(self, server: str) -> None:
        """A Secret for ``server`` is registered again: it is no departure any more."""
        if self._removed.pop(server, None) is not None and self._memory is not None:
            self._memory.returned(server)

    def get(self, server: str) -> Removal | None:
        return self._removed.get(server)

    def explicit(self) -> frozenset[str]:
        return frozenset(server for server, r in self._removed.items() if r.explicit)

    def server_of(self, name: str) -> str:
        """The server of the newest departed cluster called ``name`` ("" when none)."""
        return next((server for server, r in reversed(self._removed.items()) if r.name == name), "")
