"""Drive `argocd-notify-eval` (Argo CD's notification engine, of one Argo CD release) over the catalog and
the fixture table."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from argocd_lifecycle.notifications.catalog.build import Catalog
from argocd_lifecycle.notifications.catalog.formats import configmap
from tests.argocd_versions import ArgocdRelease
from tests.conftest import REPO, require_tool

FIXTURES = REPO / "tests" / "fixtures" / "notifications"
APPS = FIXTURES / "apps"
ARGOCD_URL = "https://argocd.example.test"
NOTIFIED = "notified.notifications.argoproj.io"
WEBHOOK_FIELDS = ("trigger", "severity", "app", "namespace", "project", "cluster", "clusterPhase", "revision")
WEBHOOK_FIELDS += ("syncStatus", "health", "message")  # no URL: the receiver builds its links itself
_RELATIVE = re.compile(r"@now-(\d+)([smhd])")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
#: what every installation has (Argo CD creates it): from v3.4 the engine looks up the Application's
#: AppProject for the `appProject` variable and warns when it is missing
DEFAULT_PROJECT = {
    "apiVersion": "argoproj.io/v1alpha1",
    "kind": "AppProject",
    "metadata": {"name": "default", "namespace": "argocd"},
    "spec": {"sourceRepos": ["*"], "destinations": [{"server": "*", "namespace": "*"}]},
}


def rfc3339(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def materialize(value: Any, now: dt.datetime) -> Any:
    """Replace every string ``@now-<n><s|m|h|d>`` with that time before ``now`` (RFC3339, UTC)."""
    if isinstance(value, dict):
        return {key: materialize(item, now) for key, item in value.items()}
    if isinstance(value, list):
        return [materialize(item, now) for item in value]
    if isinstance(value, str) and (match := _RELATIVE.fullmatch(value)):
        return rfc3339(now - dt.timedelta(seconds=int(match[1]) * _UNIT[match[2]]))
    return value


@dataclass(frozen=True)
class Case:
    """One fixture: the triggers that must fire on it; every other catalog trigger must not."""

    rel: str
    folder: str
    fires: bool
    expected: frozenset[str]

    def app(self, now: dt.datetime) -> dict[str, Any]:
        loaded: dict[str, Any] = materialize(json.loads((APPS / self.rel).read_text(encoding="utf-8")), now)
        return loaded


def cases() -> list[Case]:
    also: dict[str, list[str]] = yaml.safe_load((APPS / "also-fires.yaml").read_text(encoding="utf-8")) or {}
    out = []
    for path in sorted(APPS.glob("*/*.json")):
        rel = f"{path.parent.name}/{path.name}"
        fires = path.name.startswith("fires-")
        assert fires or path.name.startswith("quiet-"), f"{rel}: fixture names start with fires- or quiet-"
        expected = {path.parent.name} if fires else set()
        out.append(Case(rel, path.parent.name, fires, frozenset(expected | set(also.pop(rel, [])))))
    assert not also, f"also-fires.yaml names fixtures that do not exist: {sorted(also)}"
    return out


@dataclass(frozen=True)
class Result:
    rc: int
    entries: list[dict[str, Any]]
    stderr: str

    @property
    def fired(self) -> set[str]:
        return {e["trigger"] for e in self.entries if e["triggered"]}

    @property
    def errors(self) -> list[str]:
        return [f"{e['trigger']}: {e['error']}" for e in self.entries if e.get("error")]

    @property
    def warnings(self) -> list[str]:
        """What the engine logged at warning level, per entry (the exit code stays 0)."""
        return [f"{e['trigger']}: {w}" for e in self.entries for w in e.get("warnings", [])]

    def entry(self, trigger: str) -> dict[str, Any]:
        (found,) = [e for e in self.entries if e["trigger"] == trigger]
        return found


def configmap_for_engine(catalog: Catalog, extra: dict[str, str] | None = None) -> dict[str, Any]:
    """The rendered `--format configmap` output, plus the context Argo CD's Helm chart would add."""
    cm: dict[str, Any] = yaml.safe_load(configmap(catalog))
    cm["data"]["context"] = f"argocdUrl: {ARGOCD_URL}\n"
    cm["data"].update(extra or {})
    return cm


class Evaluator:
    """Runs one release's argocd-notify-eval with one ConfigMap and, unless ``project`` is None, an
    AppProject for `appProject` (v3.4+); each call writes the Application to a file. A warning the engine
    logs fails the test unless ``allow_warnings``: none of the catalog's evaluations may differ so."""

    def __init__(
        self,
        workdir: Path,
        cm: dict[str, Any],
        *,
        release: ArgocdRelease,
        project: dict[str, Any] | None = DEFAULT_PROJECT,
        allow_warnings: bool = False,
    ) -> None:
        self.release = release
        self.allow_warnings = allow_warnings
        self.binary = require_tool(release.tool("argocd-notify-eval"))
        self.workdir = workdir
        self.cm_path = workdir / "argocd-notifications-cm.yaml"
        self.cm_path.write_text(yaml.safe_dump(cm, allow_unicode=True), encoding="utf-8")
        self.project = project
        self._count = 0

    def run(self, app: dict[str, Any] | str, *triggers: str) -> Result:
        self._count += 1
        app_path = self.workdir / f"app-{self._count}.json"
        app_path.write_text(app if isinstance(app, str) else json.dumps(app, ensure_ascii=False), encoding="utf-8")
        argv = [str(self.binary), "--configmap", str(self.cm_path), "--app", str(app_path)]
        if self.project is not None:
            # the Application's own AppProject, as Argo CD has it for every Application it manages (a
            # fixture's hostile project name included): the engine looks it up from v3.4 on
            project = json.loads(json.dumps(self.project))
            project["metadata"]["name"] = _project_of(app)
            project_path = self.workdir / f"appproject-{self._count}.json"
            project_path.write_text(json.dumps(project, ensure_ascii=False), encoding="utf-8")
            argv += ["--project", str(project_path)]
        for trigger in triggers:
            argv += ["--trigger", trigger]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
        entries = json.loads(proc.stdout) if proc.stdout.strip() else []
        result = Result(proc.returncode, entries, proc.stderr)
        if result.warnings and not self.allow_warnings:
            pytest.fail(f"Argo CD {self.release.release}'s engine warned: {result.warnings}", pytrace=False)
        return result


def _project_of(app: dict[str, Any] | str) -> str:
    """spec.project of an Application given as a mapping or as JSON/YAML text ("default" when unset)."""
    try:
        doc = yaml.safe_load(app) if isinstance(app, str) else app
    except yaml.YAMLError:
        return "default"  # text the engine refuses as --app: no project is read
    spec = doc.get("spec") if isinstance(doc, dict) else None
    project = spec.get("project") if isinstance(spec, dict) else None
    return project if isinstance(project, str) and project else "default"


_clock = itertools.count(1_764_403_200, 60)


def notified_with(app: dict[str, Any], *state_keys: str) -> dict[str, Any]:
    """The Application with these keys added to the controller's notified annotation, each at a later
    unix time than the previous send (the controller records ``time.Now().Unix()``)."""
    out = json.loads(json.dumps(app))
    annotations = out.setdefault("metadata", {}).setdefault("annotations", {})
    state = json.loads(annotations.get(NOTIFIED, "{}"))
    for key in state_keys:
        state[key] = next(_clock)
    annotations[NOTIFIED] = json.dumps(state)
    return out
