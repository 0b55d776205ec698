"""Retry delays: doubling from the base, capped, fully jittered, and reset after a success."""

from __future__ import annotations

import pytest

from argocd_lifecycle.backoff import Backoff, exponential_delay


@pytest.mark.parametrize(("attempt", "delay"), [(-1, 0.5), (0, 0.5), (1, 1.0), (3, 4.0), (6, 30.0), (60, 30.0)])
def test_exponential_delay_doubles_and_caps(attempt: int, delay: float) -> None:
    assert exponential_delay(attempt, 0.5, 30.0) == delay


def test_backoff_sequence_at_the_top_of_the_jitter() -> None:
    backoff = Backoff(base=0.5, cap=4.0, rng=lambda: 1.0)
    assert [backoff.next() for _ in range(6)] == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    backoff.reset()
    assert backoff.next() == 0.5


def test_jitter_scales_the_whole_delay() -> None:
    # full jitter: anything from 0 to the capped delay, so many retriers spread out
    assert Backoff(base=2.0, cap=30.0, rng=lambda: 0.0).next() == 0.0
    assert Backoff(base=2.0, cap=30.0, rng=lambda: 0.25).next() == 0.5
