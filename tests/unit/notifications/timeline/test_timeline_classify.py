"""Which Events belong to an application, and the lane each of Argo CD's reasons and messages goes to."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from argocd_lifecycle.notifications.timeline.classify import app_lane, belongs
from argocd_lifecycle.notifications.timeline.events import KubeEvent
from argocd_lifecycle.notifications.timeline.model import Lane, ObjectRef

T0 = datetime(2026, 3, 4, 14, 2, 11, tzinfo=UTC)


RESOURCES = [
    ObjectRef("Deployment", "web", "shop", "apps/v1"),
    ObjectRef("Service", "web", "shop", "v1"),
    ObjectRef("ClusterRole", "web-reader", "", "rbac.authorization.k8s.io/v1"),
]


@pytest.mark.parametrize(
    ("obj", "expected"),
    [
        (ObjectRef("Deployment", "web", "shop"), True),
        (ObjectRef("ReplicaSet", "web-5d4c8b7f9", "shop"), True),
        (ObjectRef("Pod", "web-5d4c8b7f9-hx8rj", "shop"), True),
        (ObjectRef("Endpoints", "web", "shop"), True),
        (ObjectRef("ClusterRole", "web-reader", ""), True),
        (ObjectRef("Pod", "web-5d4c8b7f9-hx8rj", "other"), False),  # same name, another namespace
        (ObjectRef("Pod", "webshop-7f-abcde", "shop"), False),  # a prefix without the dash
        (ObjectRef("ConfigMap", "web-config", "shop"), False),  # not a kind a Deployment creates
        (ObjectRef("Deployment", "web", ""), False),
    ],
)
def test_resources_and_the_objects_they_create_match_by_name(obj: ObjectRef, expected: bool) -> None:
    assert belongs(obj, RESOURCES) is expected


def event(reason: str, message: str) -> KubeEvent:
    app = ObjectRef("Application", "web", "argocd", "argoproj.io/v1alpha1")
    return KubeEvent("web.1", "argocd", app, reason, message, "Normal", "argocd-server", T0, T0, 1, {})


@pytest.mark.parametrize(
    ("reason", "message", "lane"),
    [
        ("ResourceUpdated", "Updated sync status: Synced -> OutOfSync", Lane.SYNC),
        (
            "ResourceUpdated",
            "Updated health status: Progressing -> Degraded (Deployment exceeded its deadline)",
            Lane.HEALTH,
        ),
        ("ResourceUpdated", "updated application spec", Lane.OPERATION),
        ("ResourceDeleted", "deleted resource apps/Deployment 'web'", Lane.RESOURCE),
        ("ResourceDeleted", "deleted application", Lane.OPERATION),
        ("OperationStarted", "initiated rollback to 4", Lane.OPERATION),
        ("StatusRefreshed", "Unable to delete application resources: forbidden", Lane.OPERATION),
        ("DriftDetected", "Application argocd/web: live drift ...: spec.replicas 3 -> 5 by kubectl-edit", Lane.SYNC),
        ("DriftResolved", "Synced again; the drift episode since 2026-01-02T10:32:05Z ended", Lane.SYNC),
    ],
)
def test_argo_cd_reasons_and_messages_choose_the_lane(reason: str, message: str, lane: Lane) -> None:
    assert app_lane(event(reason, message)) is lane
