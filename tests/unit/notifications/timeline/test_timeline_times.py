"""How times are shown: offsets between entries, to the second."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from argocd_lifecycle.notifications.timeline.times import offset

T0 = datetime(2026, 3, 4, 14, 2, 11, tzinfo=UTC)


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "+0s"), (42, "+42s"), (185, "+3m05s"), (7380, "+2h03m"), (273600, "+3d04h"), (-5, "-5s")],
)
def test_offsets_are_whole_seconds_two_units_at_most(seconds: int, shown: str) -> None:
    assert offset(T0, T0 + timedelta(seconds=seconds)) == shown
    # cut to whole seconds at both ends, as Kubernetes stores them
    assert offset(T0.replace(microsecond=900_000), T0 + timedelta(seconds=1)) == "+1s"
