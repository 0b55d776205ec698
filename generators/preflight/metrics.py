"""The upgrade gate's gauges: blockers per gated cluster, and per cluster and AppProject.

``argocd_lifecycle_cluster_upgrade_blockers{cluster}`` is there while the cluster is gated (0: clear).
``..._by_project{cluster,project}`` has a series only for a project that owns blockers now: a project
whose blockers are fixed, a cluster that clears, is no longer gated or is deleted loses its series, so
none is left stale. A project is an Application's ``spec.project``, which whoever writes Applications
chooses: at most ``MAX_PROJECT_SERIES`` projects per cluster get a series of their own (those with the
most blockers), the rest are summed under ``OTHER`` (not an AppProject name: it cannot collide), and a
name longer than an AppProject's can be is cut.
"""

from __future__ import annotations

import contextlib

from prometheus_client import REGISTRY, CollectorRegistry, Gauge

from argocd_lifecycle.generators.preflight.report import Report, blockers_by_project

MAX_PROJECT_SERIES = 20
#: the longest AppProject name (a DNS-1123 subdomain)
MAX_PROJECT_LABEL = 253
OTHER = "(other)"


def project_counts(report: Report, most: int = MAX_PROJECT_SERIES) -> dict[str, int]:
    """The by-project series of ``report``: at most ``most`` projects, then ``OTHER`` for the rest."""
    counts = blockers_by_project(report)
    out: dict[str, int] = {}
    for project, n in counts[:most]:
        label = project[:MAX_PROJECT_LABEL]
        out[label] = out.get(label, 0) + n
    rest = sum(n for _, n in counts[most:])
    if rest:
        out[OTHER] = rest
    return out


class GateMetrics:
    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.blockers = Gauge(
            "argocd_lifecycle_cluster_upgrade_blockers",
            "Objects that block the upgrade named by the cluster Secret's upgrade-to (0: clear)",
            ["cluster"],
            registry=registry,
        )
        self.by_project = Gauge(
            "argocd_lifecycle_cluster_upgrade_blockers_by_project",
            "Objects that block the cluster's upgrade, by their Application's AppProject (owners of blockers only)",
            ["cluster", "project"],
            registry=registry,
        )
        #: the projects each cluster has a by-project series for
        self._projects: dict[str, set[str]] = {}

    def show(self, cluster: str, report: Report | None) -> None:
        """The gauges for ``cluster``'s latest report (None: not gated, so no series at all)."""
        if report is None:
            self.forget(cluster)
            return
        self.blockers.labels(cluster).set(len(report.blockers))
        counts = project_counts(report)
        for gone in self._projects.get(cluster, set()) - set(counts):
            self.by_project.remove(cluster, gone)
        for project, n in counts.items():
            self.by_project.labels(cluster, project).set(n)
        if counts:
            self._projects[cluster] = set(counts)
        else:
            self._projects.pop(cluster, None)

    def forget(self, cluster: str) -> None:
        """Remove every series of ``cluster`` (deleted, or no longer gated)."""
        with contextlib.suppress(KeyError):  # never shown, or already removed
            self.blockers.remove(cluster)
        for project in self._projects.pop(cluster, set()):
            self.by_project.remove(cluster, project)
