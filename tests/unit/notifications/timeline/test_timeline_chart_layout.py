"""The chart's layout: time-axis breaks at long quiet gaps, and labels shared by the same step of many objects."""

from __future__ import annotations

from argocd_lifecycle.notifications.timeline import chart_layout
from argocd_lifecycle.notifications.timeline.labels import TIMES
from argocd_lifecycle.notifications.timeline.model import Lane

from .conftest import story


def test_the_chart_breaks_the_time_axis_at_long_quiet_gaps() -> None:
    segments = chart_layout.segments(story("checkout").entries)
    assert len(segments) == 2  # yesterday's deployment, then today's story
    assert segments[0][1] < segments[1][0]


def test_labels_group_same_steps_of_many_objects() -> None:
    layout = chart_layout.layout(list(story("checkout").entries))
    texts = {chart_layout.shown(m) for seg in layout for m in seg.lanes[Lane.RESOURCE]}
    assert f"Pod Pulled · Created · Started {TIMES}3" in texts
    assert f"Pod Killing {TIMES}3" in texts
    assert f"Pod Unhealthy {TIMES}4" in texts
