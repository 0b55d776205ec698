"""What the writer puts on the cluster Secret and how it names its Events."""

from __future__ import annotations

from datetime import UTC, datetime

from argocd_lifecycle.generators.fleet.lifecycle import Tracked
from argocd_lifecycle.generators.fleet.writer import EventSpec, phase_annotations
from argocd_lifecycle.model import Annotation, Phase

SINCE = datetime(2026, 3, 1, 8, 30, tzinfo=UTC)


def test_phase_annotations_are_the_three_keys_and_version_only_when_known() -> None:
    state = Tracked(phase=Phase.READY, since=SINCE, git_version="v1.29.3")
    assert phase_annotations(state) == {
        Annotation.PHASE: "Ready",
        Annotation.PHASE_SINCE: "2026-03-01T08:30:00Z",
        Annotation.KUBERNETES_VERSION: "1.29.3",
    }
    assert Annotation.KUBERNETES_VERSION not in phase_annotations(Tracked(phase=Phase.PENDING, since=SINCE))


def test_event_object_name_is_stable_per_secret_incarnation_and_reason() -> None:
    a = EventSpec("argocd", "cluster-edge", "uid-1", "ClusterReady", "m")
    assert a.object_name == EventSpec("argocd", "cluster-edge", "uid-1", "ClusterReady", "other").object_name
    assert a.object_name != EventSpec("argocd", "cluster-edge", "uid-2", "ClusterReady", "m").object_name
    assert a.object_name.startswith("cluster-edge.")
