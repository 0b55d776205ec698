"""The two recorded stories rebuilt from files: order, lanes, spans, what joins and what stays out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from argocd_lifecycle.notifications.timeline.build import Request, build
from argocd_lifecycle.notifications.timeline.files import gather, read_files
from argocd_lifecycle.notifications.timeline.model import Lane

from .conftest import BLUEGREEN, FAILED, story, story_files


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_entries_are_in_time_order_with_argo_cd_reasons_before_their_consequences() -> None:
    timeline = story("checkout")
    times = [e.time for e in timeline.entries]
    assert times == sorted(times)
    argo = [(e.lane, e.reason, e.message.split(":")[0]) for e in timeline.entries if e.source.startswith("argocd")]
    assert [(lane, reason) for lane, reason, _ in argo] == [
        (Lane.SYNC, "ResourceUpdated"),
        (Lane.OPERATION, "OperationStarted"),
        (Lane.HEALTH, "ResourceUpdated"),
        (Lane.OPERATION, "OperationCompleted"),
        (Lane.SYNC, "ResourceUpdated"),
        (Lane.HEALTH, "ResourceUpdated"),
        (Lane.OPERATION, "ResourceActionRan"),
        (Lane.RESOURCE, "ResourceActionRan"),
        (Lane.HEALTH, "ResourceUpdated"),
    ]


def test_the_blue_green_story_reads_sync_then_health_transitions_then_the_switch() -> None:
    entries = story("checkout").entries
    transitions = [e.message for e in entries if e.lane in (Lane.SYNC, Lane.HEALTH)]
    assert transitions == [
        "Updated sync status: Synced -> OutOfSync",
        "Updated health status: Healthy -> Progressing",
        "Updated sync status: OutOfSync -> Synced",
        "Updated health status: Progressing -> Suspended",
        "Updated health status: Suspended -> Healthy",
    ]
    reasons = [e.reason for e in entries]
    order = [
        "OperationStarted",
        "NewReplicaSetCreated",
        "RolloutPaused",
        "ResourceActionRan",
        "SwitchService",
        "Killing",
    ]
    assert [reasons.index(r) for r in order] == sorted(reasons.index(r) for r in order)


def test_sub_second_order_comes_from_event_names() -> None:
    entries = story("checkout").entries
    same_second = [e.reason for e in entries if e.time.replace(microsecond=0) == at("2026-03-04T14:02:12")]
    assert same_second[:4] == ["RolloutUpdated", "NewReplicaSetCreated", "RolloutNotCompleted", "ScalingReplicaSet"]
    scheduled = [e for e in entries if e.reason == "Scheduled"]
    assert [e.time.microsecond for e in scheduled] == [412_000, 421_731, 431_462]  # eventTime, to the microsecond


def test_resources_join_only_with_include_resources_and_only_the_apps_own() -> None:
    without = story("checkout", include_resources=False)
    assert {e.lane for e in without.entries} == {Lane.OPERATION, Lane.SYNC, Lane.HEALTH}
    objects = {str(e.object) for e in story("checkout").entries if e.lane is Lane.RESOURCE}
    assert "Rollout/checkout" in objects
    assert "ReplicaSet/checkout-6b7f9d8c5d" in objects  # children by name
    assert "Pod/checkout-5d4c8b7f9-hx8rj" in objects  # old pods terminating
    assert not any("cart" in o for o in objects)  # another team's Deployment in the same namespace
    apps = {e.object.name for e in story("checkout").entries if e.object.kind == "Application"}
    assert apps == {"checkout"}  # the cart Application's Events stay out


def test_a_merged_event_is_a_span_whose_inner_timestamps_are_lost() -> None:
    unhealthy = next(e for e in story("checkout").entries if e.reason == "Unhealthy")
    assert (unhealthy.count, unhealthy.timestamps_lost, unhealthy.is_span) == (4, True, True)
    assert unhealthy.time.replace(microsecond=0) == at("2026-03-04T14:02:19")
    assert unhealthy.last_time == at("2026-03-04T14:02:34")
    single = next(e for e in story("checkout").entries if e.reason == "SwitchService")
    assert (single.count, single.timestamps_lost, single.is_span) == (1, False, False)


def test_status_history_and_operation_are_spans_and_health_is_not_repeated() -> None:
    entries = story("checkout").entries
    deployed = [e for e in entries if e.reason == "Deployed"]
    assert [(e.time, e.last_time) for e in deployed] == [
        (at("2026-03-03T16:40:02"), at("2026-03-03T16:40:31")),
        (at("2026-03-04T14:02:11"), at("2026-03-04T14:02:42")),
    ]
    assert deployed[1].message == "deployed b7e41c9 (history id 7, automated)"
    operation = next(e for e in entries if e.source == "status.operationState")
    assert (operation.reason, operation.is_span) == ("OperationSucceeded", True)
    # status.health (Healthy at 14:09:07) repeats the Event "Suspended -> Healthy": shown once
    assert not any(e.source == "status.health" for e in entries)


def test_the_failed_sync_story_shows_retries_hook_failures_and_its_cluster_only() -> None:
    entries = story("payments").entries
    operation = next(e for e in entries if e.source == "status.operationState" and e.lane is Lane.OPERATION)
    assert operation.reason == "OperationFailed"
    assert operation.is_warning
    assert operation.message.startswith("sync failed (automated, 2 retries): one or more synchronization tasks")
    assert (operation.time, operation.last_time) == (at("2026-03-04T09:58:02"), at("2026-03-04T10:00:10"))
    hook = next(e for e in entries if e.reason == "HookFailed")
    assert (str(hook.object), hook.lane, hook.message) == (
        "Job/payments-db-migrate",
        Lane.RESOURCE,
        "PreSync hook failed: Job has reached the specified backoff limit",
    )
    attempts = [e for e in entries if e.reason == "BackoffLimitExceeded"]
    assert len(attempts) == 3
    backoffs = [(e.count, e.is_span) for e in entries if e.reason == "BackOff"]
    assert backoffs == [(3, True), (2, True), (3, True)]
    cluster = [(e.reason, e.object.name, e.count) for e in entries if e.lane is Lane.CLUSTER]
    assert cluster == [("ClusterDegraded", "cluster-prod-eu-1", 3), ("ClusterRecovered", "cluster-prod-eu-1", 1)]
    completed = next(e for e in entries if e.reason == "OperationCompleted")
    assert completed.is_warning
    assert entries.index(completed) > entries.index(attempts[-1])
    sync_error = next(e for e in entries if e.reason == "SyncError")
    assert (sync_error.lane, sync_error.source) == (Lane.SYNC, "status.conditions")


def test_without_cluster_secrets_cluster_events_are_left_out_with_a_note() -> None:
    files = [p for p in story_files("payments") if "secret" not in p.name]
    timeline = story("payments", files=files)
    assert not timeline.lane_entries(Lane.CLUSTER)
    assert timeline.notes == (
        "3 cluster Event(s) left out: no cluster Secrets to tell which one is this application's destination",
    )


def test_since_counts_back_from_the_newest_entry_of_the_files() -> None:
    request = Request(
        app="checkout", namespace="argocd", include_resources=True, since=timedelta(minutes=1), since_text="1m"
    )
    timeline = build(request, gather(read_files(story_files("checkout")), request))
    assert timeline.window.end is not None and timeline.window.start is not None
    assert timeline.window.end.replace(microsecond=0) == at("2026-03-04T14:09:37")
    assert timeline.window.end - timeline.window.start == timedelta(minutes=1)
    assert timeline.entries and all(e.last_time >= timeline.window.start for e in timeline.entries)
    assert timeline.entries[0].reason == "ResourceActionRan"


def test_events_only_bundle_still_tells_the_argo_cd_story() -> None:
    request = Request(app="checkout", namespace="argocd")
    gathered = gather(read_files([BLUEGREEN / "events-argocd.json"]), request)
    timeline = build(request, gathered)
    assert len(timeline.entries) == 8
    assert gathered.notes == ("no Application object in the files: status history and resource list unavailable",)


def test_cluster_secret_values_never_reach_any_output() -> None:
    from argocd_lifecycle.notifications.timeline import render_json, render_text

    timeline = story("payments")
    text = render_json.render(timeline) + render_text.table(timeline, UTC) + render_text.markdown(timeline, UTC)
    assert "DO-NOT-PRINT" not in text
    assert "fixture-token" not in repr(read_files([FAILED / "cluster-secrets.json"]))
