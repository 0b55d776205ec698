"""What the writer puts on the cluster Secret and how it names its Events."""

from __future__ import annotations

from datetime import UTC, datetime

from argocd_lifecycle.generators.fleet.events import EventSpec
from argocd_lifecycle.generators.fleet.lifecycle import ADMITTED, Tracked
from argocd_lifecycle.generators.fleet.writer import phase_annotations
from argocd_lifecycle.model import Annotation, Phase

SINCE = datetime(2026, 3, 1, 8, 30, tzinfo=UTC)


def test_phase_annotations_version_only_when_known_and_admitted_once_past_the_gate() -> None:
    state = Tracked(phase=Phase.READY, since=SINCE, git_version="v1.29.3", ready=True)
    assert phase_annotations(state) == {
        Annotation.PHASE: "Ready",
        Annotation.PHASE_SINCE: "2026-03-01T08:30:00Z",
        Annotation.KUBERNETES_VERSION: "1.29.3",
        ADMITTED: "true",
    }
    assert phase_annotations(Tracked(phase=Phase.PENDING, since=SINCE)) == {
        Annotation.PHASE: "Pending",
        Annotation.PHASE_SINCE: "2026-03-01T08:30:00Z",
    }


def test_event_object_name_is_stable_per_object_incarnation_and_reason() -> None:
    a = EventSpec("argocd", "cluster-edge", "uid-1", "ClusterReady", "m")
    assert a.object_name == EventSpec("argocd", "cluster-edge", "uid-1", "ClusterReady", "other").object_name
    assert a.object_name != EventSpec("argocd", "cluster-edge", "uid-2", "ClusterReady", "m").object_name
    assert a.object_name.startswith("cluster-edge.")
