"""Retry delays: capped exponential growth with jitter, so many retriers spread out."""

from __future__ import annotations

import random
from collections.abc import Callable


def exponential_delay(attempt: int, base: float, cap: float) -> float:
    """The un-jittered delay before retry number ``attempt`` (0 for the first retry): base * 2^attempt, capped."""
    return min(cap, base * 2.0 ** max(0, attempt))


class Backoff:
    """Stateful capped exponential backoff with full jitter (the AWS architecture blog's variant)."""

    def __init__(self, base: float = 0.5, cap: float = 30.0, rng: Callable[[], float] = random.random) -> None:
        self.base, self.cap, self.attempt, self._rng = base, cap, 0, rng

    def next(self) -> float:
        delay = exponential_delay(self.attempt, self.base, self.cap) * self._rng()
        self.attempt += 1
        return delay

    def reset(self) -> None:
        self.attempt = 0
