"""The argocd-notify-eval interface other checks rely on: output shape, error entries, exit codes."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml

from argocd_lifecycle.notifications.catalog.build import Catalog, CatalogSettings, build
from tests.integration.notifications.catalog.engine import Evaluator, cases, configmap_for_engine

pytestmark = pytest.mark.upstream

BROKEN = {"trigger.broken": "- when: app.status.operationState.phase == 'Failed'\n  send: [lifecycle-self-heal]\n"}


def test_entry_shape(engine: Evaluator) -> None:
    result = engine.run({"metadata": {"name": "x"}}, "on-cluster-unreachable", "on-self-heal")
    assert result.rc == 0
    assert [e["trigger"] for e in result.entries] == ["on-cluster-unreachable", "on-self-heal"]
    for entry in result.entries:
        assert {"trigger", "triggered", "oncePer", "templates", "rendered"} <= set(entry)
        assert entry["triggered"] is False
        assert entry["rendered"] == {}
        assert "error" not in entry


def test_yaml_application_is_read_like_json(engine: Evaluator, now: dt.datetime) -> None:
    app = next(c for c in cases() if c.rel == "on-cluster-unreachable/fires-unreachable.json").app(now)
    result = engine.run(yaml.safe_dump(app), "on-cluster-unreachable")
    assert result.entry("on-cluster-unreachable")["triggered"] is True


def test_runtime_error_in_when_is_an_error_entry_and_exit_1(tmp_path: Path, catalog: Catalog) -> None:
    engine = Evaluator(tmp_path, configmap_for_engine(catalog, BROKEN))
    result = engine.run({"metadata": {"name": "no-status"}})
    assert result.rc == 1
    broken = result.entry("broken")
    assert broken["triggered"] is False
    assert "operationState" in broken["error"]
    assert "broken condition 0" in result.stderr
    assert [e["trigger"] for e in result.entries if e.get("error")] == ["broken"]


def test_bad_input_exits_2_without_output(tmp_path: Path, engine: Evaluator) -> None:
    result = engine.run("{not json")
    assert result.rc == 2
    assert result.entries == []
    assert "--app" in result.stderr


def test_unknown_trigger_exits_1(engine: Evaluator) -> None:
    result = engine.run({"metadata": {"name": "x"}}, "on-nothing")
    assert result.rc == 1
    assert "on-nothing" in result.stderr


def test_thresholds_are_build_time_settings(tmp_path: Path, now: dt.datetime) -> None:
    """The 25-minute OutOfSync fixture fires at the default 20 minutes and stays quiet at 30."""
    app = next(c for c in cases() if c.rel == "on-out-of-sync-too-long/fires-out-of-sync-25m-after-sync.json").app(now)
    slow = Evaluator(tmp_path, configmap_for_engine(build(CatalogSettings(out_of_sync_minutes=30))))
    assert slow.run(app, "on-out-of-sync-too-long").fired == set()
    text = json.dumps(slow.run(app, "on-out-of-sync-too-long").entries)
    assert "error" not in text
