"""An Application's drift: live drift against a new revision, the objects read, bounds, text and JSON."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.drift.attribute import ObjectRef
from argocd_lifecycle.drift.report import LIVE, NONE, REVISION, DriftInputError, read_app, report, to_read
from argocd_lifecycle.drift.text import SUMMARY_CHARS, listed, summary, table, to_json

FIXTURES = Path(__file__).parents[3] / "fixtures" / "drift"
DEPLOYMENT = ObjectRef("apps", "Deployment", "shop", "web")
CONFIG = ObjectRef("", "ConfigMap", "shop", "web-config")
SECRET = ObjectRef("", "Secret", "shop", "web-db")


def _app() -> dict[str, Any]:
    return json.loads((FIXTURES / "application.json").read_text())


def _reads() -> dict[ObjectRef, Any]:
    items = json.loads((FIXTURES / "objects.json").read_text())["items"]
    by_name = {(i["kind"], i["metadata"]["name"]): i for i in items}
    return {
        DEPLOYMENT: by_name[("Deployment", "web")],
        CONFIG: by_name[("ConfigMap", "web-config")],
        SECRET: by_name[("Secret", "web-db")],
    }


def test_the_application_is_read() -> None:
    app = read_app(_app())
    assert (app.name, app.namespace, app.project, app.state) == ("shop", "argocd", "payments", LIVE)
    assert app.out_of_sync == (DEPLOYMENT, CONFIG, SECRET)
    assert app.synced_at is not None and app.synced_at.isoformat() == "2026-01-02T10:30:01+00:00"
    assert app.annotations["argocd-lifecycle.io/drift-window"] == "45m"
    assert app.self_heal is False


def test_a_new_revision_is_not_live_drift_and_reads_nothing() -> None:
    raw = _app()
    raw["status"]["sync"]["revision"] = "0123456789abcdef0123456789abcdef01234567"
    app = read_app(raw)
    assert app.state == REVISION
    assert to_read(app) == ()
    r = report(app, _reads())
    assert r.objects == () and not r.attributed
    assert "a new revision not yet synced (desired 0123456789abcdef0123456789abcdef01234567" in table(r)


def test_a_failed_sync_of_the_desired_revision_is_not_live_drift() -> None:
    raw = _app()
    raw["status"]["sync"]["revision"] = raw["status"]["operationState"]["syncResult"]["revision"] = "feedface"
    raw["status"]["operationState"]["phase"] = "Failed"
    app = read_app(raw)
    assert (app.state, app.synced_revision) == (REVISION, "9f2c41d7e0b8a6c5d4e3f2a1b0c9d8e7f6a5b4c3")


def test_never_synced_is_a_revision_to_sync() -> None:
    raw = _app()
    del raw["status"]["operationState"], raw["status"]["history"]
    app = read_app(raw)
    assert (app.state, app.synced_at) == (REVISION, None)


def test_history_stands_in_for_a_missing_operation() -> None:
    raw = _app()
    del raw["status"]["operationState"]
    app = read_app(raw)
    assert app.state == LIVE and app.synced_at is not None


def test_nothing_out_of_sync_is_no_drift() -> None:
    raw = _app()
    for r in raw["status"]["resources"]:
        r["status"] = "Synced"
    r = report(read_app(raw), {})
    assert r.app.state == NONE and not r.attributed
    assert table(r) == "Application argocd/shop: no OutOfSync object\n"


def test_multi_source_revisions_are_compared_whole() -> None:
    raw = _app()
    raw["status"]["sync"] = {"revisions": ["a", "b"]}
    raw["status"]["operationState"]["syncResult"] = {"revisions": ["a", "c"]}
    assert read_app(raw).state == REVISION
    raw["status"]["operationState"]["syncResult"] = {"revisions": ["a", "b"]}
    assert read_app(raw).state == LIVE


def test_the_report_attributes_each_object_or_says_why_not() -> None:
    reads = _reads()
    reads[CONFIG] = "cluster not readable: HTTP 403"
    r = report(read_app(_app()), reads)
    assert r.attributed
    assert [o.ref for o in r.objects] == [DEPLOYMENT, CONFIG, SECRET]
    assert len(r.objects[0].changes) == 4
    assert r.objects[1].unattributed == "cluster not readable: HTTP 403"
    text = table(r)
    assert text.startswith(
        "Application argocd/shop: live drift (revision 9f2c41d7e0b8a6c5d4e3f2a1b0c9d8e7f6a5b4c3, synced "
        "2026-01-02T10:30:01Z; the live state changed since)\n"
        "OutOfSync (3): Deployment shop/web, ConfigMap shop/web-config, Secret shop/web-db\n"
        "Deployment shop/web\n"
    )
    assert "  spec.replicas 3 -> 5 by kubectl, Update /scale, time not recorded\n" in text
    assert "ConfigMap shop/web-config\n  not attributed: cluster not readable: HTTP 403\n" in text
    assert "bGl2ZS1zZWNyZXQ" not in text


def test_an_object_missing_from_the_reads_is_not_guessed() -> None:
    r = report(read_app(_app()), {})
    assert {o.unattributed for o in r.objects} == {"not read"}
    assert not r.attributed


def test_objects_per_episode_are_bounded() -> None:
    raw = _app()
    raw["status"]["resources"] = [
        {"version": "v1", "kind": "ConfigMap", "namespace": "shop", "name": f"c{i}", "status": "OutOfSync"}
        for i in range(30)
    ]
    r = report(read_app(raw), {}, max_objects=5)
    assert len(r.objects) == 5 and r.skipped == 25
    assert "25 more OutOfSync objects not read" in table(r)
    assert listed(r.app.out_of_sync).endswith("ConfigMap shop/c9 and 20 more")


def test_the_summary_is_one_bounded_line() -> None:
    r = report(read_app(_app()), _reads())
    line = summary(r)
    assert "\n" not in line and len(line) <= SUMMARY_CHARS
    assert "Deployment shop/web: spec.template.spec.containers[name=web].env[name=DEBUG_SQL]" in line
    assert len(summary(r, limit=80)) == 80


def test_json_carries_every_change() -> None:
    doc = to_json(report(read_app(_app()), _reads()))
    assert doc["state"] == LIVE and doc["attributed"] is True
    scale = doc["objects"][0]["changes"][-1]
    assert scale == {
        "path": "spec.replicas",
        "manager": "kubectl",
        "operation": "Update",
        "subresource": "scale",
        "time": "",
        "live": "5",
        "applied": "3",
        "appliedState": "value",
        "line": "spec.replicas 3 -> 5 by kubectl, Update /scale, time not recorded",
    }
    assert doc["objects"][2]["changes"][0]["live"] is None


@pytest.mark.parametrize(
    "raw",
    [
        {"kind": "Deployment", "apiVersion": "apps/v1"},
        {"kind": "Application", "apiVersion": "example.com/v1"},
        {"kind": "Application", "apiVersion": "argoproj.io/v1alpha1", "metadata": {}},
    ],
)
def test_what_is_not_an_application_is_refused(raw: dict[str, Any]) -> None:
    with pytest.raises(DriftInputError):
        read_app(raw)


def test_hostile_status_fields_are_ignored() -> None:
    raw = copy.deepcopy(_app())
    raw["status"]["resources"] = ["x", {"status": "OutOfSync"}, {"kind": 5, "name": "n", "status": "OutOfSync"}]
    raw["status"]["sync"] = "x"
    raw["status"]["operationState"] = {"finishedAt": "yesterday", "syncResult": []}
    raw["status"]["history"] = "x"
    raw["metadata"]["annotations"] = {"a": 1}
    app = read_app(raw)
    assert (app.out_of_sync, app.state, app.synced_at, dict(app.annotations)) == ((), NONE, None, {})
