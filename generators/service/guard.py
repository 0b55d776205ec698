"""The mass-drop guard: refuse an answer that would lose too many clusters at once.

An ApplicationSet deletes the Applications of every cluster that leaves its generator's output. A
healthy fleet rarely loses half its clusters between two requests; a broken selector, a half-read
inventory or a bad label change does. So the guard remembers, per ApplicationSet and selecting input,
which clusters the last answer held; when the new answer loses more than ``max_drop_percent`` of them
the service answers 503 (Argo CD then keeps every Application and retries) until the fleet recovers or
the ApplicationSet's input sets ``allowMassDrop: true``. A refused answer is not remembered, so the
refusal lasts as long as the drop does. The first answer for a key is always given, even when empty.

The memory is per process and bounded (least recently used keys are forgotten first).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from argocd_lifecycle.generators.service.errors import Unavailable

MAX_KEYS = 4096


class MassDropRefused(Unavailable):
    """The answer would drop more clusters than allowed (503)."""


@dataclass(frozen=True)
class Drop:
    lost: int
    before: int

    @property
    def percent(self) -> float:
        return 100.0 * self.lost / self.before


class MassDropGuard:
    def __init__(self, max_drop_percent: float, *, max_keys: int = MAX_KEYS) -> None:
        self.max_drop_percent = max_drop_percent
        self._max_keys = max_keys
        self._last: OrderedDict[tuple[str, str], frozenset[str]] = OrderedDict()

    def check(
        self,
        appset: str,
        selection_key: str,
        names: frozenset[str],
        *,
        allow: bool,
        departed: frozenset[str] | set[str] = frozenset(),
    ) -> None:
        """Record ``names`` as the answer for the key, or raise MassDropRefused and record nothing.

        ``departed`` clusters left on purpose (Secret deleted, decommissioned): losing them is no drop.
        """
        key = (appset, selection_key)
        before = self._last.get(key)
        if before is not None and before is not names and not allow:
            drop = Drop(len(before - names - departed), len(before))
            if drop.lost and drop.percent > self.max_drop_percent:
                raise MassDropRefused(
                    f"mass-drop guard: this answer would drop {drop.lost} of the {drop.before} clusters "
                    f"of the last answer to ApplicationSet {appset!r} ({drop.percent:.0f}% > "
                    f"--max-drop-percent {self.max_drop_percent:g}); Argo CD would delete their "
                    "Applications. Refusing until the clusters come back; set allowMassDrop: true in the "
                    "generator's input parameters to accept the drop"
                )
        self._last[key] = names
        self._last.move_to_end(key)
        while len(self._last) > self._max_keys:
            self._last.popitem(last=False)
