"""Every catalog trigger fires exactly on its fixtures, evaluated by Argo CD's own notification engine,
and every template renders for every firing case with valid JSON wherever JSON is expected."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from argocd_lifecycle.notifications.catalog.build import Catalog
from tests.integration.notifications.catalog.engine import (
    ARGOCD_URL,
    WEBHOOK_FIELDS,
    Case,
    Evaluator,
    cases,
)

pytestmark = pytest.mark.upstream

CASES = cases()
FIRING = [case for case in CASES if case.expected]
HOSTILE = 'x "quoted" \\ back\nnew line\ttab ✓ 日本語 \u2028 </b> {{ .app.metadata.name }} %s %!'


@pytest.mark.parametrize("case", CASES, ids=[c.rel for c in CASES])
def test_trigger_fires_exactly_on_its_cases(case: Case, engine: Evaluator, catalog: Catalog, now: dt.datetime) -> None:
    result = engine.run(case.app(now))
    assert result.errors == [], result.stderr
    assert result.rc == 0, result.stderr
    assert {e["trigger"] for e in result.entries} == {t.name for t in catalog.triggers}
    assert result.fired == case.expected


def test_every_trigger_has_three_firing_and_three_quiet_cases(catalog: Catalog) -> None:
    for trigger in catalog.triggers:
        mine = [c for c in CASES if c.folder == trigger.name]
        assert sum(c.fires for c in mine) >= 3, trigger.name
        assert sum(not c.fires for c in mine) >= 3, trigger.name


def test_the_table_covers_missing_fields(now: dt.datetime) -> None:
    apps = [c.app(now) for c in CASES]
    assert any("status" not in a for a in apps)
    assert any("operationState" not in a.get("status", {"operationState": 1}) for a in apps)
    assert any("health" not in a.get("status", {"health": 1}) for a in apps)
    assert any("annotations" not in a["metadata"] for a in apps)


def _rendered(result_entries: list[dict[str, Any]]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(e["trigger"], name, n) for e in result_entries if e["triggered"] for name, n in e["rendered"].items()]


def _check_notification(catalog: Catalog, trigger: str, notification: dict[str, Any], app: dict[str, Any]) -> None:
    spec = next(t for t in catalog.triggers if t.name == trigger)
    meta = app["metadata"]
    assert notification["message"].strip()
    subject = notification["email"]["subject"]
    assert subject.strip()
    assert "\n" not in subject
    slack = notification["slack"]
    assert slack["groupingKey"] == f"argocd-lifecycle/{meta.get('namespace', '')}/{meta['name']}"
    (attachment,) = json.loads(slack["attachments"])
    assert attachment["color"] == catalog.severities[spec.severity]
    assert attachment["title"] == subject
    assert attachment["text"] == notification["message"]
    teams = notification["teams"]
    assert teams["themeColor"] == catalog.severities[spec.severity]
    facts = {f["name"]: f["value"] for f in json.loads(teams["facts"])}
    assert facts["Application"] == f"{meta.get('namespace', '')}/{meta['name']}"
    (action,) = json.loads(teams["potentialAction"])
    assert action["targets"][0]["uri"].startswith(ARGOCD_URL + "/applications/")
    hook = notification["webhook"][catalog.settings.webhook_service]
    assert hook["method"] == "POST"
    assert hook["path"] == "/v1/events/argocd"
    body = json.loads(hook["body"])
    assert list(sorted(body)) == sorted(WEBHOOK_FIELDS)
    assert all(isinstance(v, str) for v in body.values())
    assert body["trigger"] == trigger
    assert body["severity"] == spec.severity
    assert body["app"] == meta["name"]
    assert body["namespace"] == meta.get("namespace", "")
    assert body["project"] == app.get("spec", {}).get("project", "")
    assert body["message"] == notification["message"]
    assert body["clusterPhase"] == meta.get("annotations", {}).get("argocd-lifecycle.io/cluster-phase", "")


@pytest.mark.parametrize("case", FIRING, ids=[c.rel for c in FIRING])
def test_every_template_renders_for_every_firing_case(
    case: Case, engine: Evaluator, catalog: Catalog, now: dt.datetime
) -> None:
    app = case.app(now)
    result = engine.run(app)
    for entry in result.entries:
        if entry["triggered"]:
            assert sorted(entry["rendered"]) == sorted(entry["templates"]), entry.get("error")
    rendered = _rendered(result.entries)
    assert {trigger for trigger, _, _ in rendered} == case.expected
    for trigger, _, notification in rendered:
        _check_notification(catalog, trigger, notification, app)


def _hostile(app: dict[str, Any]) -> dict[str, Any]:
    """Every free-text field an operator or Kubernetes controls, set to quotes, newlines and unicode."""
    out: dict[str, Any] = json.loads(json.dumps(app))
    out["metadata"]["name"] = "name " + HOSTILE
    out["metadata"]["namespace"] = "ns " + HOSTILE
    spec = out.setdefault("spec", {})
    spec["project"] = "project " + HOSTILE
    spec.setdefault("destination", {})["name"] = "cluster " + HOSTILE
    status = out.get("status", {})
    if "health" in status:
        status["health"]["message"] = "health " + HOSTILE
    if "sync" in status:
        status["sync"]["revision"] = "rev " + HOSTILE
    if "operationState" in status and "message" in status["operationState"]:
        status["operationState"]["message"] += " " + HOSTILE
    for condition in status.get("conditions", []):
        condition["message"] = "condition " + HOSTILE
    annotations = out["metadata"].get("annotations", {})
    if "argocd-lifecycle.io/cluster-phase-since" in annotations:
        annotations["argocd-lifecycle.io/cluster-phase-since"] += " " + HOSTILE
    return out


@pytest.mark.parametrize("case", FIRING, ids=[c.rel for c in FIRING])
def test_hostile_values_keep_every_json_document_valid(
    case: Case, engine: Evaluator, catalog: Catalog, now: dt.datetime
) -> None:
    app = _hostile(case.app(now))
    result = engine.run(app)
    assert result.errors == [], result.stderr
    assert result.fired == case.expected
    rendered = _rendered(result.entries)
    assert rendered
    for trigger, _, notification in rendered:
        _check_notification(catalog, trigger, notification, app)
        body = json.loads(notification["webhook"][catalog.settings.webhook_service]["body"])
        assert body["cluster"] == "cluster " + HOSTILE
        assert HOSTILE in body["message"]


def test_webhook_body_sample_matches_the_catalog(engine: Evaluator, now: dt.datetime) -> None:
    """tests/fixtures/notifications/webhook-body.json (what the receiver consumes) has the real shape."""
    from tests.integration.notifications.catalog.engine import FIXTURES

    sample = json.loads((FIXTURES / "webhook-body.json").read_text(encoding="utf-8"))
    case = next(c for c in CASES if c.rel == "on-cluster-unreachable/fires-unreachable.json")
    result = engine.run(case.app(now), "on-cluster-unreachable")
    (notification,) = result.entry("on-cluster-unreachable")["rendered"].values()
    body = json.loads(notification["webhook"]["argocd-lifecycle"]["body"])
    assert sorted(body) == sorted(sample)
    assert {k: type(v) for k, v in body.items()} == {k: type(v) for k, v in sample.items()}
    assert body["trigger"] == sample["trigger"]
    assert body["severity"] == sample["severity"]
