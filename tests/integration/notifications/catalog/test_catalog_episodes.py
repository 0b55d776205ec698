"""Episodes the way the notifications controller lives them: an alert is recorded in the Application's
`notified.notifications.argoproj.io` annotation under the engine's own state key, and the recovery that
closes it fires once per alerted episode, never for an Application that was never alerted."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from argocd_lifecycle.notifications.catalog.build import Catalog
from argocd_lifecycle.notifications.catalog.formats import subscription_annotations
from tests.integration.notifications.catalog.engine import Evaluator, cases, notified_with, rfc3339

pytestmark = pytest.mark.upstream

PHASE = "argocd-lifecycle.io/cluster-phase"
SINCE = "argocd-lifecycle.io/cluster-phase-since"


class Controller:
    """The controller's send decision (notifications-engine pkg/controller): a triggered condition is
    sent to a destination unless its state key is already in the notified annotation; sending records it."""

    def __init__(self, engine: Evaluator) -> None:
        self.engine = engine
        self.sent: list[tuple[str, str]] = []  # (trigger, oncePer)

    def observe(self, app: dict[str, Any], trigger: str) -> dict[str, Any]:
        result = self.engine.run(app, trigger)
        assert result.errors == [] and result.rc == 0, result.stderr
        entry = result.entry(trigger)
        if not entry["triggered"]:
            return app
        notified = app["metadata"].get("annotations", {}).get("notified.notifications.argoproj.io", "")
        new_keys = [d["stateKey"] for d in entry["destinations"] if d["stateKey"] not in notified]
        if new_keys:
            self.sent.append((trigger, entry["oncePer"]))
        return notified_with(app, *new_keys)


def base_app(catalog: Catalog, now: dt.datetime) -> dict[str, Any]:
    annotations = subscription_annotations(catalog)
    annotations.update({PHASE: "Ready", SINCE: rfc3339(now - dt.timedelta(days=9))})
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "shop", "namespace": "argocd", "annotations": annotations},
        "spec": {"project": "default", "destination": {"name": "edge-7", "namespace": "shop"}},
        "status": {
            "sync": {"status": "Synced", "revision": "abc123"},
            "health": {"status": "Healthy", "lastTransitionTime": rfc3339(now - dt.timedelta(days=9))},
        },
    }


def with_health(app: dict[str, Any], status: str, since: dt.datetime) -> dict[str, Any]:
    out = notified_with(app)
    out["status"]["health"] = {"status": status, "lastTransitionTime": rfc3339(since)}
    return out


def with_phase(app: dict[str, Any], phase: str, since: dt.datetime) -> dict[str, Any]:
    out = notified_with(app)
    out["metadata"]["annotations"].update({PHASE: phase, SINCE: rfc3339(since)})
    return out


def test_degraded_alert_then_one_recovery_per_episode(engine: Evaluator, catalog: Catalog, now: dt.datetime) -> None:
    ctl = Controller(engine)
    triggers = ("on-health-degraded-too-long", "on-health-recovered")

    def tick(app: dict[str, Any]) -> dict[str, Any]:
        for trigger in triggers:
            app = ctl.observe(app, trigger)
        return app

    app = tick(base_app(catalog, now))  # controller start: nothing for a healthy app
    assert ctl.sent == []
    first = now - dt.timedelta(minutes=50)
    app = tick(with_health(app, "Degraded", first))
    app = tick(app)  # the same episode is not announced twice
    app = tick(with_health(app, "Healthy", now - dt.timedelta(minutes=40)))
    app = tick(app)
    # a short dip below the threshold: no alert, and so no second recovery
    app = tick(with_health(app, "Degraded", now - dt.timedelta(minutes=3)))
    app = tick(with_health(app, "Healthy", now - dt.timedelta(minutes=2)))
    assert ctl.sent == [("on-health-degraded-too-long", rfc3339(first)), ("on-health-recovered", rfc3339(first))]
    second = now - dt.timedelta(minutes=30)
    app = tick(with_health(app, "Degraded", second))
    app = tick(with_health(app, "Healthy", now - dt.timedelta(minutes=1)))
    assert ctl.sent[2:] == [("on-health-degraded-too-long", rfc3339(second)), ("on-health-recovered", rfc3339(second))]


@pytest.mark.parametrize(
    ("alert", "phase", "recovery"),
    [
        ("on-cluster-unreachable", "Unreachable", "on-cluster-recovered"),
        ("on-cluster-upgrading", "Upgrading", "on-cluster-upgraded"),
    ],
)
def test_cluster_transition_then_one_closing_message(
    engine: Evaluator, catalog: Catalog, now: dt.datetime, alert: str, phase: str, recovery: str
) -> None:
    ctl = Controller(engine)

    def tick(app: dict[str, Any]) -> dict[str, Any]:
        for trigger in (alert, recovery):
            app = ctl.observe(app, trigger)
        return app

    app = tick(base_app(catalog, now))  # a Ready cluster at controller start: nothing
    assert ctl.sent == []
    began = now - dt.timedelta(minutes=20)
    app = tick(with_phase(app, phase, began))
    app = tick(app)
    app = tick(with_phase(app, "Ready", now - dt.timedelta(minutes=5)))
    app = tick(app)
    assert ctl.sent == [(alert, rfc3339(began)), (recovery, rfc3339(began))]
    again = now - dt.timedelta(minutes=4)
    app = tick(with_phase(app, phase, again))
    app = tick(with_phase(app, "Ready", now - dt.timedelta(minutes=1)))
    assert ctl.sent[2:] == [(alert, rfc3339(again)), (recovery, rfc3339(again))]


def test_no_install_storm_for_fine_applications(engine: Evaluator, catalog: Catalog, now: dt.datetime) -> None:
    """A fleet of fine Applications (fresh health transitions, recent syncs, Ready clusters) at controller start."""
    app = base_app(catalog, now)
    app["status"]["health"]["lastTransitionTime"] = rfc3339(now - dt.timedelta(seconds=30))
    app["status"]["operationState"] = {
        "phase": "Succeeded",
        "startedAt": rfc3339(now - dt.timedelta(minutes=2)),
        "finishedAt": rfc3339(now - dt.timedelta(minutes=1)),
        "operation": {"sync": {"revision": "abc123"}, "initiatedBy": {"automated": True}},
        "syncResult": {"revision": "abc123"},
    }
    app["metadata"]["annotations"][SINCE] = rfc3339(now - dt.timedelta(seconds=30))
    result = engine.run(app)
    assert result.errors == []
    assert result.fired == set()


@pytest.mark.parametrize(
    "rel",
    [
        "on-health-recovered/fires-healthy-after-second-episode.json",
        "on-cluster-recovered/fires-ready-after-second-episode.json",
        "on-cluster-upgraded/fires-ready-after-second-episode.json",
        "on-drift-reconciled/fires-synced-after-second-episode.json",
    ],
)
def test_recovery_closes_the_latest_delivered_episode(rel: str, engine: Evaluator, now: dt.datetime) -> None:
    case = next(c for c in cases() if c.rel == rel)
    entry = engine.run(case.app(now), case.folder).entry(case.folder)
    assert entry["triggered"] is True
    assert entry["oncePer"] == "2026-11-29T09:00:00Z"


def test_alerts_recorded_in_the_same_second_still_give_one_episode(
    engine: Evaluator, catalog: Catalog, now: dt.datetime
) -> None:
    app = base_app(catalog, now)
    state = {
        "2026-11-28T09:00:00Z:on-cluster-unreachable:[0].aGFzaA:argocd-lifecycle:": 1764403200,
        "2026-11-29T09:00:00Z:on-cluster-unreachable:[0].aGFzaA:argocd-lifecycle:": 1764403200,
    }
    app["metadata"]["annotations"]["notified.notifications.argoproj.io"] = json.dumps(state)
    for _ in range(5):  # Go map order is random: the answer must not be
        assert (
            engine.run(app, "on-cluster-recovered").entry("on-cluster-recovered")["oncePer"] == "2026-11-29T09:00:00Z"
        )


def test_out_of_sync_once_per_episode(engine: Evaluator, catalog: Catalog, now: dt.datetime) -> None:
    ctl = Controller(engine)
    trigger = "on-out-of-sync-too-long"

    def synced_at(app: dict[str, Any], minutes_ago: int, status: str) -> dict[str, Any]:
        out = notified_with(app)
        out["spec"]["syncPolicy"] = {"automated": {"prune": True}}
        out["status"]["sync"]["status"] = status
        out["status"]["operationState"] = {
            "phase": "Succeeded",
            "startedAt": rfc3339(now - dt.timedelta(minutes=minutes_ago + 1)),
            "finishedAt": rfc3339(now - dt.timedelta(minutes=minutes_ago)),
            "operation": {"sync": {"revision": "abc123"}, "initiatedBy": {"automated": True}},
        }
        return out

    app = ctl.observe(synced_at(base_app(catalog, now), 60, "Synced"), trigger)
    app = ctl.observe(synced_at(app, 60, "OutOfSync"), trigger)  # drift, no self-heal: nobody syncs
    app = ctl.observe(app, trigger)
    app = ctl.observe(synced_at(app, 30, "OutOfSync"), trigger)  # someone synced; still OutOfSync after
    app = ctl.observe(synced_at(app, 5, "OutOfSync"), trigger)  # synced again, too recently to tell
    first, second = (rfc3339(now - dt.timedelta(minutes=m)) for m in (60, 30))
    assert ctl.sent == [(trigger, first), (trigger, second)]


def test_drift_alert_once_per_episode_then_one_recovery(engine: Evaluator, catalog: Catalog, now: dt.datetime) -> None:
    ctl = Controller(engine)
    triggers = ("on-drift-unreconciled", "on-drift-reconciled")

    def tick(app: dict[str, Any]) -> dict[str, Any]:
        for trigger in triggers:
            app = ctl.observe(app, trigger)
        return app

    def drifting(app: dict[str, Any], since: int, deadline: int) -> dict[str, Any]:
        out = notified_with(app)
        out["status"]["sync"]["status"] = "OutOfSync"
        out["metadata"]["annotations"].update(
            {
                "argocd-lifecycle.io/drift-since": rfc3339(now - dt.timedelta(minutes=since)),
                "argocd-lifecycle.io/drift-deadline": rfc3339(now - dt.timedelta(minutes=deadline)),
                "argocd-lifecycle.io/drift-attribution": "Deployment shop/web: spec.replicas 3 -> 5 by kubectl-edit",
            }
        )
        return out

    def synced(app: dict[str, Any]) -> dict[str, Any]:
        out = notified_with(app)
        out["status"]["sync"]["status"] = "Synced"
        for key in ("drift-since", "drift-deadline", "drift-attribution"):
            out["metadata"]["annotations"].pop(f"argocd-lifecycle.io/{key}", None)
        return out

    app = tick(base_app(catalog, now))  # controller start: nothing
    app = tick(drifting(app, 10, -20))  # inside the window: nothing yet
    app = tick(drifting(app, 40, 10))  # the window ended: the alert
    app = tick(app)  # still drifting: not again
    app = tick(synced(app))  # committed or healed: one recovery
    app = tick(app)
    app = tick(drifting(app, 100, 70))  # a later episode alerts again
    first, second = (rfc3339(now - dt.timedelta(minutes=m)) for m in (40, 100))
    assert ctl.sent == [
        ("on-drift-unreconciled", first),
        ("on-drift-reconciled", first),
        ("on-drift-unreconciled", second),
    ]
