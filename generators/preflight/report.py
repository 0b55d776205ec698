"""The preflight's result: domain values, exit codes, and the one-line summary the gate publishes."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from argocd_lifecycle.deprecations.rules import Key, minor
from argocd_lifecycle.generators.preflight.apps import Resource
from argocd_lifecycle.generators.preflight.clusters import ClusterRef

# exit codes, as `scan` (README "Upgrading a cluster")
EXIT_CLEAN, EXIT_ERROR, EXIT_DEPRECATED, EXIT_BLOCKED = 0, 1, 2, 3


class Status(StrEnum):
    #: the target does not serve it and nothing will change it before the sync: fix it in Git
    BLOCKER = "blocker"
    #: the target does not serve it, but our plugin rewrites it to a served version at render
    REWRITTEN = "rewritten"
    #: still served by the target, deprecated there (removal scheduled)
    DEPRECATED = "deprecated"


class FailOn(StrEnum):
    """The least serious finding that makes the exit code non-zero."""

    DEPRECATED = "deprecated"
    BLOCKERS = "blockers"
    NEVER = "never"


_ORDER = {Status.BLOCKER: 0, Status.REWRITTEN: 1, Status.DEPRECATED: 2}


@dataclass(frozen=True)
class Finding:
    application: str
    project: str
    #: "name" / "discovery" when our plugin renders the Application, else ""
    plugin: str
    resource: Resource
    status: Status
    deprecated_in: str
    removed_in: str
    replacement: str
    note: str

    def sort_key(self) -> tuple[object, ...]:
        r = self.resource
        return (_ORDER[self.status], self.application, r.kind, r.namespace, r.name, r.api_version)


@dataclass(frozen=True)
class DroppedApi:
    """An API the cluster serves today that the target no longer serves (context)."""

    api_version: str
    kind: str
    removed_in: str
    replacement: str
    note: str


@dataclass(frozen=True)
class Report:
    cluster: ClusterRef
    target: Key
    current: Key | None
    data_version: str
    #: Applications deploying to the cluster (namespace/name), sorted
    applications: tuple[str, ...]
    objects: int
    findings: tuple[Finding, ...]
    dropped: tuple[DroppedApi, ...]
    notes: tuple[str, ...] = ()

    def count(self, status: Status) -> int:
        return sum(f.status is status for f in self.findings)

    @property
    def blockers(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.status is Status.BLOCKER)


def exit_code(report: Report, fail_on: FailOn = FailOn.DEPRECATED) -> int:
    if fail_on is FailOn.NEVER:
        return EXIT_CLEAN
    if report.blockers:
        return EXIT_BLOCKED
    if fail_on is FailOn.DEPRECATED and report.findings:
        return EXIT_DEPRECATED
    return EXIT_CLEAN


def headline(report: Report) -> str:
    """One line for humans: the Event message and the table's first line."""
    target = minor(report.target)
    blockers, rewritten = len(report.blockers), report.count(Status.REWRITTEN)
    extra = f"; {rewritten} object(s) rewritten at render by the plugin" if rewritten else ""
    if not blockers:
        return f"upgrade of {report.cluster.name} to {target}: nothing blocks it{extra}"
    apps = len({f.application for f in report.blockers})
    return (
        f"upgrade of {report.cluster.name} to {target} blocked by {blockers} object(s) in {apps} Application(s){extra}"
    )


#: projects a summary names before "and K more", and the characters of each name it shows
SUMMARY_PROJECTS, PROJECT_CHARS = 5, 63


def blockers_by_project(report: Report) -> tuple[tuple[str, int], ...]:
    """(project, blockers) of every project owning a blocker, most blockers first, then by name; a
    blocker of no project (the gate's own, about Applications it cannot see) is in none."""
    counts = Counter(f.project for f in report.blockers if f.project)
    return tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _project_name(project: str) -> str:
    """A project as a summary shows it: an Application's ``spec.project`` is anyone's text, so clipped."""
    return project if len(project) <= PROJECT_CHARS else project[: PROJECT_CHARS - 3] + "..."


def project_summary(report: Report, most: int = SUMMARY_PROJECTS) -> str:
    """``team-a 2, default 1`` (blockers per project), at most ``most`` projects then "and K more"."""
    counts = blockers_by_project(report)
    named = ", ".join(f"{_project_name(p)} {n}" for p, n in counts[:most])
    left = len(counts) - most
    return named + (f" and {left} more" if left > 0 else "")


def blocked_summary(report: Report, limit: int = 1024) -> str:
    """``by project: team-a 2, default 1; app: Kind ns/name (apiVersion); ...`` of the blockers: which
    projects own them, then each one, at most about ``limit`` characters (the rest counted as "and N
    more"): an annotation value and a notification line, so bounded."""
    owned = project_summary(report)
    head = [f"by project: {owned}"] if owned else []
    parts = [f"{f.application}: {f.resource.label} ({f.resource.api_version})" for f in report.blockers]
    kept: list[str] = []
    size = sum(len(h) + 2 for h in head)
    for part in parts:
        if kept and size + len(part) + 2 > limit - 20:  # room for "; and N more"
            break
        shown = part[: limit - size - 20]  # one very long name: clipped, never over the limit
        kept.append(shown)
        size += len(shown) + 2
    left = len(parts) - len(kept)
    return "; ".join([*head, *kept]) + (f"; and {left} more" if left else "")
