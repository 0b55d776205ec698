"""The by-project gauge is bounded: whoever writes Applications chooses their spec.project."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.generators.preflight.apps import read_application
from argocd_lifecycle.generators.preflight.clusters import resolve
from argocd_lifecycle.generators.preflight.evaluate import evaluate
from argocd_lifecycle.generators.preflight.metrics import MAX_PROJECT_LABEL, MAX_PROJECT_SERIES, OTHER, GateMetrics
from argocd_lifecycle.generators.preflight.report import Report

from .helpers import application, cluster_secret, resource

NAME = "argocd_lifecycle_cluster_upgrade_blockers_by_project"


def report_of(projects: list[str]) -> Report:
    apps = []
    for i, project in enumerate(projects):
        app = application(f"app-{i}", [resource("policy/v1beta1", "PodDisruptionBudget", "web")], project=project)
        apps.append(read_application(app, "x"))
    return evaluate(builtin(), resolve("prod", [cluster_secret()]), apps, (1, 25), current=(1, 24))


def series(registry: CollectorRegistry) -> dict[str, float]:
    return {s.labels["project"]: s.value for m in registry.collect() if m.name == NAME for s in m.samples}


def test_a_thousand_projects_make_at_most_twenty_one_series() -> None:
    """Attack: a tenant creates 1000 Applications, each naming its own project, each with a blocker;
    the gauge grew 1000 series per gated cluster."""
    registry = CollectorRegistry()
    metrics = GateMetrics(registry)
    metrics.show("prod", report_of([f"p-{i:04}" for i in range(1000)] + ["big"] * 5))
    got = series(registry)
    assert len(got) == MAX_PROJECT_SERIES + 1
    assert got["big"] == 5.0 and got[OTHER] == 1000 - (MAX_PROJECT_SERIES - 1)
    assert sum(got.values()) == 1005.0  # every blocker is counted somewhere


def test_a_long_project_name_is_cut_to_an_appprojects_longest() -> None:
    registry = CollectorRegistry()
    GateMetrics(registry).show("prod", report_of(["x" * 100_000]))
    assert [len(p) for p in series(registry)] == [MAX_PROJECT_LABEL]


def test_forgetting_a_cluster_never_shown_is_harmless() -> None:
    registry = CollectorRegistry()
    metrics = GateMetrics(registry)
    metrics.forget("never-gated")
    metrics.show("prod", None)
    assert series(registry) == {}
