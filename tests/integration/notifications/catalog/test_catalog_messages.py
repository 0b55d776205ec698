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
