"""What the messages say: the facts each alert promises (durations, phases, revisions, links)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.integration.notifications.catalog.engine import Evaluator, cases

pytestmark = pytest.mark.upstream


def message(engine: Evaluator, rel: str, now: dt.datetime) -> str:
    case = next(c for c in cases() if c.rel == rel)
    (notification,) = engine.run(case.app(now), case.folder).entry(case.folder)["rendered"].values()
    body = json.loads(notification["webhook"]["argocd-lifecycle"]["body"])
    assert body["message"] == notification["message"]
    text: str = notification["message"]
    return text


def test_removed_api_names_each_object_and_points_to_scan(engine: Evaluator, now: dt.datetime) -> None:
    text = message(engine, "on-sync-failed-removed-api/fires-removed-kind-psp.json", now)
    assert "PodSecurityPolicy restricted (policy/v1beta1)" in text
    assert "Deployment" not in text  # the object that synced fine is not blamed
    assert "argocd-lifecycle scan apps/guestbook --target-version" in text
    text = message(engine, "on-sync-failed-removed-api/fires-removed-version-ingress.json", now)
    assert "Ingress guestbook/web (extensions/v1beta1)" in text
    text = message(engine, "on-sync-failed-removed-api/fires-no-matches-for-kind-in-operation-message.json", now)
    assert 'no matches for kind "HorizontalPodAutoscaler" in version "autoscaling/v2beta2"' in text


def test_self_heal_lists_what_was_corrected(engine: Evaluator, now: dt.datetime) -> None:
    text = message(engine, "on-self-heal/fires-first-self-heal.json", now)
    assert "Corrected: Deployment/web, ConfigMap/web-config." in text
    assert "self-heal attempt 1" in text


def test_cluster_messages_name_cluster_and_phase_time(engine: Evaluator, now: dt.datetime) -> None:
    text = message(engine, "on-cluster-unreachable/fires-unreachable.json", now)
    assert text.startswith("Cluster prod-eu-1 is Unreachable since 20")
    text = message(engine, "on-cluster-unreachable/fires-unreachable-without-since.json", now)
    assert text.startswith("Cluster prod-eu-1 is Unreachable: ")


def test_out_of_sync_message_carries_the_conditions(engine: Evaluator, now: dt.datetime) -> None:
    text = message(engine, "on-out-of-sync-too-long/fires-failed-revision-not-retried.json", now)
    assert "more than 20 minutes" in text
    assert "Conditions: SyncError: Failed last sync attempt" in text


def test_out_of_sync_names_its_objects_and_tells_a_new_revision_from_live_drift(
    engine: Evaluator, now: dt.datetime
) -> None:
    # the last sync of the desired revision failed: what is OutOfSync is a revision not yet synced
    text = message(engine, "on-out-of-sync-too-long/fires-failed-revision-not-retried.json", now)
    assert "a new revision 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b is not yet synced (last synced: 4f6c2e1d" in text
    text = message(engine, "on-out-of-sync-too-long/fires-out-of-sync-25m-after-sync.json", now)
    assert "live drift: revision" in text or "is not yet synced" in text


def test_live_drift_names_objects_first_ten_and_a_count(engine: Evaluator, now: dt.datetime) -> None:
    text = message(engine, "on-drift-unreconciled/fires-window-ended.json", now)
    assert "live drift: revision 9f2c41d7e0b8a6c5d4e3f2a1b0c9d8e7f6a5b4c3 is synced and the live state changed" in text
    assert "OutOfSync (2): Deployment shop/web, ConfigMap shop/web-config." in text
    assert "Changed: Deployment shop/web: spec.replicas 3 -> 5 by kubectl-edit, Update, 10:32:05Z;" in text
    assert '.env[name=LOG_LEVEL].value "info" -> "debug" by kubectl-edit' in text
    assert "break-glass window ended at 20" in text
    text = message(engine, "on-drift-unreconciled/fires-many-objects.json", now)
    assert "OutOfSync (12): ConfigMap shop/config-00, " in text
    assert "ConfigMap shop/config-09 and 2 more." in text
    assert "config-10" not in text and "ClusterRole" not in text


def test_unreconciled_drift_with_a_commit_not_yet_synced_says_so(engine: Evaluator, now: dt.datetime) -> None:
    text = message(engine, "on-drift-unreconciled/fires-committed-but-not-synced.json", now)
    assert "a new revision 0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e is not yet synced (last synced: 9f2c41d" in text


def test_drift_recovery_says_synced_again(engine: Evaluator, now: dt.datetime) -> None:
    text = message(engine, "on-drift-reconciled/fires-synced-after-alert.json", now)
    assert text.startswith("Application argocd/shop-prod-eu-1 on cluster prod-eu-1 is Synced again at revision 9f2c41d")
