"""What the fleet page and ``GET /api/v1/rollouts`` show of one rollout, from what a replica holds.

Two sources, both already in memory, so a page view makes no API call: the ApplicationSet's
``argocd-lifecycle.io/rollout`` annotation (the state the leader kept, from the ApplicationSets' watch) and
what this replica's last plan of the ApplicationSet saw (the waves' names, how many clusters are in each
``rollout.state``). A replica that has not answered the ApplicationSet since it started knows the state
only; a state that does not decode is shown as such, never guessed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from argocd_lifecycle.generators.rollout.machine import ClusterRollout, Decision
from argocd_lifecycle.generators.rollout.state import RolloutState


@dataclass(frozen=True)
class Planned:
    """This replica's last plan of the rollout."""

    waves: tuple[str, ...]
    #: clusters per ``rollout.state`` (a ``ClusterRollout`` value -> how many)
    states: Mapping[str, int] = field(default_factory=dict)
    at: datetime | None = None

    @property
    def clusters(self) -> int:
        return sum(self.states.values())

    @property
    def at_revision(self) -> int:
        """Clusters Synced and Healthy at the rollout's revision (``Baking`` or ``Done``)."""
        return self.states.get(ClusterRollout.DONE.value, 0) + self.states.get(ClusterRollout.BAKING.value, 0)


def planned(waves: tuple[str, ...], decisions: Mapping[str, Decision], at: datetime) -> Planned:
    counts = Counter(d.state.value for d in decisions.values())
    return Planned(waves, {s.value: counts[s.value] for s in ClusterRollout if counts[s.value]}, at)


@dataclass(frozen=True)
class RolloutSummary:
    appset: str
    #: the kept state (None: none written yet, or ``unreadable``)
    state: RolloutState | None = None
    #: why the state annotation does not decode ("" when it does, or when there is none)
    unreadable: str = ""
    planned: Planned | None = None

    @property
    def wave_name(self) -> str:
        """The name of the wave being rolled ("" when it is not known here or the last wave baked)."""
        if self.state is None or self.planned is None or self.state.wave >= len(self.planned.waves):
            return ""
        return self.planned.waves[self.state.wave]
