"""The lifecycle event JSON the poster sends to the receiver."""

from __future__ import annotations

from datetime import UTC, datetime

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.generators.fleet.lifecycle import LifecycleEvent, Tracked
from argocd_lifecycle.generators.fleet.poster import lifecycle_event
from argocd_lifecycle.model import Phase, Reason

SINCE = datetime(2026, 3, 1, 8, 30, tzinfo=UTC)


def test_lifecycle_event_json_has_the_receivers_shape() -> None:
    secret = ClusterSecret(secret_name="cluster-edge", namespace="argocd", name="edge", server="https://edge:6443")
    state = Tracked(phase=Phase.UNREACHABLE, since=SINCE, git_version="v1.29.3")
    event = LifecycleEvent(Reason.UNREACHABLE, "connect: Connection refused", Phase.READY, Phase.UNREACHABLE)
    assert lifecycle_event(secret, state, event) == {
        "reason": "ClusterUnreachable",
        "cluster": "edge",
        "server": "https://edge:6443",
        "phase": "Unreachable",
        "previousPhase": "Ready",
        "since": "2026-03-01T08:30:00Z",
        "message": "connect: Connection refused",
        "kubernetesVersion": "1.29.3",
    }
