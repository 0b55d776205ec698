"""Small pure pieces of the fleet's outputs: annotations, lifecycle JSON, AppSet matching, errors, backoff."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from kubernetes.client.exceptions import ApiException

from argocd_lifecycle.backoff import Backoff
from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.generators.fleet.lifecycle import LifecycleEvent, ProbeResult, Tracked
from argocd_lifecycle.generators.fleet.metrics import error_kind
from argocd_lifecycle.generators.fleet.notify import lifecycle_event, uses_plugin_generator
from argocd_lifecycle.generators.fleet.writer import EventSpec, phase_annotations
from argocd_lifecycle.kube import KubeConflict, KubeError, KubeGone, KubeNotFound, translate
from argocd_lifecycle.model import Annotation, Phase, Reason

SINCE = datetime(2026, 3, 1, 8, 30, tzinfo=UTC)


def test_phase_annotations_are_the_three_keys_and_version_only_when_known() -> None:
    state = Tracked(phase=Phase.READY, since=SINCE, git_version="v1.29.3")
    assert phase_annotations(state) == {
        Annotation.PHASE: "Ready",
        Annotation.PHASE_SINCE: "2026-03-01T08:30:00Z",
        Annotation.KUBERNETES_VERSION: "1.29.3",
    }
    assert Annotation.KUBERNETES_VERSION not in phase_annotations(Tracked(phase=Phase.PENDING, since=SINCE))


def test_lifecycle_event_json_has_the_design_shape() -> None:
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


def test_event_object_name_is_stable_per_secret_incarnation_and_reason() -> None:
    a = EventSpec("argocd", "cluster-edge", "uid-1", "ClusterReady", "m")
    assert a.object_name == EventSpec("argocd", "cluster-edge", "uid-1", "ClusterReady", "other").object_name
    assert a.object_name != EventSpec("argocd", "cluster-edge", "uid-2", "ClusterReady", "m").object_name
    assert a.object_name.startswith("cluster-edge.")


@pytest.mark.parametrize(
    ("generators", "configmap", "expected"),
    [
        ([{"plugin": {"configMapRef": {"name": "argocd-lifecycle"}}}], "", True),
        ([{"plugin": {"configMapRef": {"name": "argocd-lifecycle"}}}], "argocd-lifecycle", True),
        ([{"plugin": {"configMapRef": {"name": "other"}}}], "argocd-lifecycle", False),
        ([{"matrix": {"generators": [{"git": {}}, {"plugin": {"configMapRef": {"name": "x"}}}]}}], "", True),
        ([{"clusters": {}}, {"list": {"elements": [{"plugin": "not a generator"}]}}], "", False),
    ],
)
def test_uses_plugin_generator(generators: list, configmap: str, expected: bool) -> None:
    assert uses_plugin_generator({"spec": {"generators": generators}}, configmap) is expected


@pytest.mark.parametrize(
    ("status", "cls"), [(404, KubeNotFound), (409, KubeConflict), (410, KubeGone), (500, KubeError)]
)
def test_translate_uses_the_status_message_and_class(status: int, cls: type) -> None:
    exc = ApiException(status=status, reason="Reason", body=b'{"kind":"Status","message":"the real message"}')
    err = translate(exc, "list cluster Secrets in argocd")
    assert type(err) is cls and err.status == status
    assert err.message == f"list cluster Secrets in argocd: HTTP {status}: the real message"


def test_translate_transport_error() -> None:
    err = translate(ConnectionRefusedError(111, "Connection refused"), "watch cluster Secrets")
    assert type(err) is KubeError and err.status is None and "Connection refused" in err.message


def test_backoff_is_capped_full_jitter() -> None:
    backoff = Backoff(base=0.5, cap=4.0)
    delays = [backoff.next() for _ in range(10)]
    assert all(0 <= d <= 4.0 for d in delays)
    backoff.reset()
    assert backoff.next() <= 0.5


@pytest.mark.parametrize(
    ("result", "kind"),
    [
        (ProbeResult(reachable=False, error="/version: timeout (ReadTimeout)"), "timeout"),
        (ProbeResult(reachable=False, error="/version: TLS: certificate verify failed"), "tls"),
        (ProbeResult(reachable=False, error="/version: HTTP 401 (credentials rejected)"), "auth"),
        (ProbeResult(reachable=False, error="/version: connect: Connection refused"), "connect"),
        (ProbeResult(reachable=True, readyz_ok=False, error="/readyz: HTTP 500"), "unhealthy"),
        (ProbeResult(reachable=False, unsupported="exec"), "unsupported"),
        (ProbeResult(reachable=False, error="/version: the answer is not JSON"), "error"),
    ],
)
def test_error_kind_labels(result: ProbeResult, kind: str) -> None:
    assert error_kind(result) == kind
