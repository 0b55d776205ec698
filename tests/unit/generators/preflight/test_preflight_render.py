"""The report's three formats; values from Applications cannot forge rows or lines."""

from __future__ import annotations

import json

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.generators.preflight.apps import AppRecord, read_application
from argocd_lifecycle.generators.preflight.clusters import resolve
from argocd_lifecycle.generators.preflight.evaluate import evaluate
from argocd_lifecycle.generators.preflight.render import render, report_json

from .helpers import application, cluster_secret, resource


def _report(name: str = "web"):  # type: ignore[no-untyped-def]
    apps = [read_application(application("shop", [resource("policy/v1beta1", "PodDisruptionBudget", name)]), "x")]
    return evaluate(builtin(), resolve("prod", [cluster_secret()]), apps, (1, 25), current=(1, 24))


def test_json_is_a_stable_document() -> None:
    doc = report_json(_report())
    assert doc["apiVersion"] == "argocd-lifecycle.io/v1alpha1" and doc["kind"] == "UpgradePreflight"
    assert doc["summary"] == {"applications": 1, "objects": 1, "blockers": 1, "rewritten": 0, "deprecated": 0,
                              "blockersByProject": {"default": 1}}  # fmt: skip
    assert doc["items"][0] == {
        "application": "argocd/shop", "project": "default", "renderedBy": "", "kind": "PodDisruptionBudget",
        "namespace": "shop", "name": "web", "apiVersion": "policy/v1beta1", "status": "blocker",
        "deprecatedIn": "1.21", "removedIn": "1.25", "replacement": "policy/v1",
        "note": "change the manifest in Git to policy/v1",
    }  # fmt: skip
    assert {"cluster", "currentVersion", "targetVersion", "dataVersion", "droppedApis", "notes"} <= set(doc)
    assert json.loads(render(_report(), "json")) == doc


def test_table_and_markdown_name_the_object() -> None:
    table = render(_report(), "table")
    assert table.splitlines()[0].startswith("upgrade of prod to 1.25 blocked by 1 object(s) in 1 Application(s)")
    assert "argocd/shop" in table and "PodDisruptionBudget" in table and "blocker" in table
    assert "APIs prod serves today that 1.25 no longer serves:" in table
    markdown = render(_report(), "markdown")
    assert markdown.startswith("### Upgrade preflight: prod 1.24 -> 1.25")
    assert "| argocd/shop | default | PodDisruptionBudget | shop | web | policy/v1beta1 | blocker |" in markdown


def test_hostile_names_cannot_add_rows_or_cells() -> None:
    evil = "web\nargocd/x  Secret  fake | row"
    table = render(_report(evil), "table")
    assert "web\\x0aargocd/x" in table and "\nargocd/x  Secret" not in table
    markdown = render(_report(evil), "markdown")
    assert "fake \\| row" in markdown and "web\\x0a" in markdown


def test_every_format_says_which_project_owns_each_finding() -> None:
    def owned(name: str, project: str) -> AppRecord:
        app = application(name, [resource("policy/v1beta1", "PodDisruptionBudget", name)], namespace=project,
                          project=project)  # fmt: skip
        return read_application(app, "x")

    apps = [owned("web", "team-a"), owned("api", "team-a"), owned("shop", "team-b")]
    report = evaluate(builtin(), resolve("prod", [cluster_secret()]), apps, (1, 25), current=(1, 24))
    table = render(report, "table").splitlines()
    assert table[1] == "blockers by project: team-a 2, team-b 1"
    head = next(line for line in table if line.startswith("APPLICATION"))
    assert head.split()[:3] == ["APPLICATION", "PROJECT", "KIND"]
    assert [line.split()[:2] for line in table if line.startswith("team-")] == [
        ["team-a/api", "team-a"], ["team-a/web", "team-a"], ["team-b/shop", "team-b"],
    ]  # fmt: skip
    assert "\nBlockers by project: team-a 2, team-b 1.\n" in render(report, "markdown")
    assert report_json(report)["summary"]["blockersByProject"] == {"team-a": 2, "team-b": 1}
    clear = evaluate(builtin(), resolve("prod", [cluster_secret()]), [], (1, 25), current=(1, 24))
    assert "by project" not in render(clear, "table") and report_json(clear)["summary"]["blockersByProject"] == {}
