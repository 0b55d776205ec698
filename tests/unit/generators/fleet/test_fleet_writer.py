"""What the writer puts on the cluster Secret and how it names its Events."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

import pytest

from argocd_lifecycle.cluster_secrets import implicit_in_cluster
from argocd_lifecycle.generators.fleet.events import EventSpec
from argocd_lifecycle.generators.fleet.lifecycle import ADMITTED, LifecycleEvent, Tracked
from argocd_lifecycle.generators.fleet.writer import KubeWriter, phase_annotations
from argocd_lifecycle.model import Annotation, Phase, Reason

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


def test_the_implicit_in_cluster_entry_writes_nothing_to_kubernetes(caplog: pytest.LogCaptureFixture) -> None:
    """No Secret stands behind it: no annotation patch and no Event (which would name a Secret that does
    not exist); the transition goes to the log, and the leader keeps the phase in memory."""

    class NoKube:
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"Kubernetes was called: {name}")

    writer = KubeWriter(NoKube(), lambda: True)  # type: ignore[arg-type]
    entry = implicit_in_cluster("argocd")
    state = Tracked(phase=Phase.READY, since=SINCE, ready=True)
    event = LifecycleEvent(Reason.READY, "passed the readiness gate", Phase.PENDING, Phase.READY)
    with caplog.at_level(logging.INFO):
        assert asyncio.run(writer.write_phase(entry, state)) is True
        asyncio.run(writer.event(entry, event, SINCE))
    assert "cluster in-cluster: ClusterReady: passed the readiness gate" in caplog.text
