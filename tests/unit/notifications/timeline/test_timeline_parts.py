"""Small parts: durations, offsets, resource matching by name, lanes of Argo CD's messages, Markdown escaping."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.notifications.timeline import render_text
from argocd_lifecycle.notifications.timeline.classify import app_lane, belongs
from argocd_lifecycle.notifications.timeline.events import KubeEvent
from argocd_lifecycle.notifications.timeline.model import Entry, Lane, ObjectRef, Timeline
from argocd_lifecycle.notifications.timeline.times import offset, parse_duration

T0 = datetime(2026, 3, 4, 14, 2, 11, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("2h", 7200), ("90m", 5400), ("1h30m", 5400), ("45s", 45), ("7d", 604800), ("1.5h", 5400)],
)
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["", "2", "h", "2x", "-1h", "0s", "1h 30m", "30m1"])
def test_bad_durations_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_duration(text)


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(0, "+0s"), (42, "+42s"), (185, "+3m05s"), (7380, "+2h03m"), (273600, "+3d04h"), (-5, "-5s")],
)
def test_offsets_are_whole_seconds_two_units_at_most(seconds: int, shown: str) -> None:
    assert offset(T0, T0 + timedelta(seconds=seconds)) == shown
    # cut to whole seconds at both ends, as Kubernetes stores them
    assert offset(T0.replace(microsecond=900_000), T0 + timedelta(seconds=1)) == "+1s"


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
    ],
)
def test_argo_cd_reasons_and_messages_choose_the_lane(reason: str, message: str, lane: Lane) -> None:
    assert app_lane(event(reason, message)) is lane


def test_markdown_keeps_one_row_per_entry_whatever_the_message() -> None:
    entry = Entry(
        time=T0,
        last_time=T0,
        lane=Lane.OPERATION,
        reason="OperationCompleted",
        object=ObjectRef("Application", "web`s", "argocd"),
        message="failed: a | b\nsecond line <script>",
        source="argocd-application-controller",
        type="Warning",
    )
    text = render_text.markdown(Timeline(app="web", namespace="argocd", entries=(entry,)), UTC)
    row = next(line for line in text.splitlines() if line.startswith("| 2026"))
    assert row.endswith("| failed: a \\| b second line &lt;script> |")
    assert "`Application/web's`" in row
    assert "**OperationCompleted**" in row


def test_live_lists_the_namespaces_holding_the_resources_events() -> None:
    from argocd_lifecycle.notifications.timeline.files import read_files
    from argocd_lifecycle.notifications.timeline.live import namespaces

    from .conftest import story_files

    checkout = read_files(story_files("checkout")).apps[0]
    assert namespaces(checkout) == ["shop"]
    cluster_scoped = replace(checkout, resources=(*checkout.resources, ObjectRef("ClusterRole", "checkout-reader")))
    assert namespaces(cluster_scoped) == ["default", "shop"]
    nothing_listed = replace(checkout, resources=())
    assert namespaces(nothing_listed) == ["shop"]
