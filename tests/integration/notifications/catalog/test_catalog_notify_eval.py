"""The argocd-notify-eval interface other checks rely on, on each Argo CD release: output shape, error and
warning entries, exit codes, and the `appProject` variable Argo CD v3.4 added."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path

import pytest
import yaml

from argocd_lifecycle.notifications.catalog.build import Catalog, CatalogSettings, build
from tests.argocd_versions import ArgocdRelease
from tests.integration.notifications.catalog.engine import DEFAULT_PROJECT, Evaluator, cases, configmap_for_engine

pytestmark = pytest.mark.upstream

BROKEN = {"trigger.broken": "- when: app.status.operationState.phase == 'Failed'\n  send: [lifecycle-self-heal]\n"}
#: a template that shows what `appProject` holds: Argo CD v3.4+ looks it up, earlier releases have none
PROJECT_PROBE = {
    "trigger.project-probe": "- when: 'true'\n  send: [project-probe]\n",
    "template.project-probe": (
        "message: 'project={{ if .appProject }}{{ .appProject.metadata.name }}{{ else }}none{{ end }}'\n"
    ),
}


def test_entry_shape(engine: Evaluator) -> None:
    result = engine.run({"metadata": {"name": "x"}}, "on-cluster-unreachable", "on-self-heal")
    assert result.rc == 0
    assert [e["trigger"] for e in result.entries] == ["on-cluster-unreachable", "on-self-heal"]
    for entry in result.entries:
        assert {"trigger", "triggered", "oncePer", "templates", "rendered"} <= set(entry)
        assert entry["triggered"] is False
        assert entry["rendered"] == {}
        assert "error" not in entry
        assert "warnings" not in entry


def test_yaml_application_is_read_like_json(engine: Evaluator, now: dt.datetime) -> None:
    app = next(c for c in cases() if c.rel == "on-cluster-unreachable/fires-unreachable.json").app(now)
    result = engine.run(yaml.safe_dump(app), "on-cluster-unreachable")
    assert result.entry("on-cluster-unreachable")["triggered"] is True


def test_runtime_error_in_when_is_an_error_entry_and_exit_1(
    tmp_path: Path, catalog: Catalog, argocd_release: ArgocdRelease
) -> None:
    engine = Evaluator(tmp_path, configmap_for_engine(catalog, BROKEN), release=argocd_release)
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


def test_thresholds_are_build_time_settings(tmp_path: Path, now: dt.datetime, argocd_release: ArgocdRelease) -> None:
    """The 25-minute OutOfSync fixture fires at the default 20 minutes and stays quiet at 30."""
    app = next(c for c in cases() if c.rel == "on-out-of-sync-too-long/fires-out-of-sync-25m-after-sync.json").app(now)
    cm = configmap_for_engine(build(CatalogSettings(out_of_sync_minutes=30)))
    slow = Evaluator(tmp_path, cm, release=argocd_release)
    assert slow.run(app, "on-out-of-sync-too-long").fired == set()
    text = json.dumps(slow.run(app, "on-out-of-sync-too-long").entries)
    assert "error" not in text


def _project_probe(tmp_path: Path, catalog: Catalog, release: ArgocdRelease, project: dict[str, object] | None) -> dict:
    engine = Evaluator(
        tmp_path, configmap_for_engine(catalog, PROJECT_PROBE), release=release, project=project, allow_warnings=True
    )
    result = engine.run({"metadata": {"name": "shop", "namespace": "argocd"}, "spec": {}}, "project-probe")
    assert result.rc == 0, result.stderr
    entry: dict = result.entry("project-probe")
    assert entry["triggered"] is True
    return entry


def test_app_project_is_the_applications_project_from_v3_4(
    tmp_path: Path, catalog: Catalog, argocd_release: ArgocdRelease
) -> None:
    """No spec.project means "default"; the engine finds it (in a cluster: Argo CD's own AppProject)."""
    entry = _project_probe(tmp_path, catalog, argocd_release, DEFAULT_PROJECT)
    (rendered,) = entry["rendered"].values()
    expected = "project=default" if argocd_release.at_least("v3.4") else "project=none"
    assert rendered["message"] == expected
    assert "warnings" not in entry


def test_a_missing_app_project_is_a_warning_and_empty_from_v3_4(
    tmp_path: Path, catalog: Catalog, argocd_release: ArgocdRelease
) -> None:
    """Argo CD v3.4+ logs a warning and renders with `appProject` {}: reported, exit code 0; earlier
    releases never look it up."""
    entry = _project_probe(tmp_path, catalog, argocd_release, None)
    (rendered,) = entry["rendered"].values()
    assert rendered["message"] == "project=none"
    if argocd_release.at_least("v3.4"):
        (warning,) = entry["warnings"]
        assert warning.startswith("Failed to get AppProject for notification template:")
        assert '"default" not found' in warning
    else:
        assert "warnings" not in entry


def test_a_project_file_must_be_an_app_project(tmp_path: Path, engine: Evaluator) -> None:
    (tmp_path / "cm.json").write_text(json.dumps({"metadata": {"name": "cm"}, "data": {}}))
    (tmp_path / "app.json").write_text(json.dumps({"metadata": {"name": "x"}}))
    (tmp_path / "project.json").write_text(json.dumps({"kind": "ConfigMap", "metadata": {"name": "default"}}))
    argv = [str(engine.binary), "--configmap", str(tmp_path / "cm.json"), "--app", str(tmp_path / "app.json")]
    proc = subprocess.run(
        [*argv, "--project", str(tmp_path / "project.json")], capture_output=True, text=True, check=False
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert "--project" in proc.stderr and "not an AppProject" in proc.stderr
