"""The gate's summary says which AppProjects own the blockers, most first, bounded whatever the projects."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.generators.preflight.apps import read_application
from argocd_lifecycle.generators.preflight.clusters import resolve
from argocd_lifecycle.generators.preflight.evaluate import evaluate
from argocd_lifecycle.generators.preflight.report import Report, blocked_summary, blockers_by_project, project_summary

from .helpers import application, cluster_secret, resource


def owned(name: str, project: str, blockers: int, namespace: str = "argocd") -> dict[str, Any]:
    pdbs = [resource("policy/v1beta1", "PodDisruptionBudget", f"{name}-{i}") for i in range(blockers)]
    return application(name, pdbs, namespace=namespace, project=project)


def report_of(*apps: dict[str, Any]) -> Report:
    records = [read_application(a, "x") for a in apps]
    return evaluate(builtin(), resolve("prod", [cluster_secret()]), records, (1, 25), current=(1, 24))


def test_three_blockers_of_two_teams() -> None:
    report = report_of(owned("web", "team-a", 1, "team-a"), owned("api", "team-a", 1, "team-a"),
                       owned("shop", "default", 1))  # fmt: skip
    assert blockers_by_project(report) == (("team-a", 2), ("default", 1))
    assert project_summary(report) == "team-a 2, default 1"
    assert blocked_summary(report) == (
        "by project: team-a 2, default 1; argocd/shop: PodDisruptionBudget shop/shop-0 (policy/v1beta1); "
        "team-a/api: PodDisruptionBudget shop/api-0 (policy/v1beta1); "
        "team-a/web: PodDisruptionBudget shop/web-0 (policy/v1beta1)"
    )


def test_an_application_without_a_project_is_in_default_as_argo_cd_reads_it() -> None:
    app = owned("web", "", 1)
    del app["spec"]["project"]
    assert project_summary(report_of(app, owned("shop", "default", 1))) == "default 2"


def test_at_most_five_projects_are_named_then_counted() -> None:
    report = report_of(*(owned(f"app-{i}", f"team-{i}", 1 + (i == 6)) for i in range(8)))
    named = "team-6 2, team-0 1, team-1 1, team-2 1, team-3 1 and 3 more"
    assert project_summary(report) == named
    assert blocked_summary(report).startswith(f"by project: {named}; ")


def test_hostile_project_names_cannot_grow_the_summary() -> None:
    """Attack: spec.project is whatever the Application's author wrote; five 10 000-character projects
    made the annotation (and each notification) 50 kB."""
    report = report_of(*(owned(f"app-{i}", f"{i}" + "p" * 10_000, 1) for i in range(6)))
    summary = blocked_summary(report)
    assert len(summary) <= 1024
    assert summary.startswith("by project: 0" + "p" * 59 + "... 1, ")
    assert "and 1 more; " in summary
