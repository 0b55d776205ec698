"""The preflight itself: a pure function of the knowledge base, the cluster, its Applications and the
target release. Each object of an Application's ``status.resources`` whose apiVersion + kind the table
knows is judged for the target: served and deprecated, rewritten at render by our plugin (it converts
that pair by itself to a replacement the target serves), or a blocker."""

from __future__ import annotations

from collections.abc import Iterable

from argocd_lifecycle.deprecations.rules import Key, KnowledgeBase, minor
from argocd_lifecycle.deprecations.served import Verdict, dropped_between, verdict
from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.preflight.apps import AppRecord, Resource
from argocd_lifecycle.generators.preflight.clusters import ClusterRef, deploys_to
from argocd_lifecycle.generators.preflight.report import DroppedApi, Finding, Report, Status
from argocd_lifecycle.model import Annotation
from argocd_lifecycle.versions import KubeVersion


def current_version(cluster: ClusterRef) -> Key | None:
    """The minor the generator last saw the cluster run (its ``kubernetes-version`` annotation)."""
    text = cluster.annotations.get(Annotation.KUBERNETES_VERSION, "")
    try:
        return KubeVersion.parse(text).key if text else None
    except UsageError:
        return None


def _judge(app: AppRecord, v: Verdict) -> tuple[Status, str]:
    rule = v.rule
    if not v.removed:
        return Status.DEPRECATED, rule.note
    if app.plugin and app.rewrites and v.converts:
        return Status.REWRITTEN, ""
    if app.plugin and not app.rewrites and v.served_replacement is not None:
        return Status.BLOCKER, "the Application sets rewriteApis=false; " + (rule.note or "fix the manifest in Git")
    if v.served_replacement is None:
        return Status.BLOCKER, rule.note or "no replacement is served by the target"
    if app.plugin:
        return Status.BLOCKER, f"needs a manual migration: {rule.manual}"
    return Status.BLOCKER, f"change the manifest in Git to {v.served_replacement.api_version}" + (
        f" ({rule.note})" if rule.note else ""
    )


def _finding(app: AppRecord, res: Resource, v: Verdict) -> Finding:
    status, note = _judge(app, v)
    return Finding(
        application=app.ref,
        project=app.project,
        plugin=app.plugin,
        resource=res,
        status=status,
        deprecated_in=minor(v.rule.deprecated_in),
        removed_in=minor(v.rule.removed_in),
        replacement=v.advice,
        note=note,
    )


def evaluate(
    kb: KnowledgeBase,
    cluster: ClusterRef,
    apps: Iterable[AppRecord],
    target: Key,
    *,
    current: Key | None = None,
) -> Report:
    current = current or current_version(cluster)
    mine = sorted((a for a in apps if deploys_to(a, cluster)), key=lambda a: a.ref)
    findings: list[Finding] = []
    cache: dict[tuple[str, str], Verdict | None] = {}
    objects = 0
    for app in mine:
        for res in app.resources:
            objects += 1
            key = (res.api_version, res.kind)
            if key not in cache:
                cache[key] = verdict(kb, res.api_version, res.kind, target)
            found = cache[key]
            if found is not None:
                findings.append(_finding(app, res, found))
    notes = []
    if not mine:
        notes.append(f"no Application deploys to {cluster.name} ({cluster.server})")
    empty = [a.ref for a in mine if not a.resources]
    if empty:
        notes.append(f"{len(empty)} Application(s) list no resources yet: {', '.join(empty[:10])}")
    dropped: list[DroppedApi] = []
    if current is None:
        notes.append("the cluster's current version is unknown: the APIs the upgrade drops are not listed")
    elif current >= target:
        notes.append(f"the cluster already runs {minor(current)}, not older than the target {minor(target)}")
    else:
        for rule in dropped_between(kb, current, target):
            gone = verdict(kb, rule.api_version, rule.kind, target)
            advice = gone.advice if gone is not None else ""
            dropped.append(DroppedApi(rule.api_version, rule.kind, minor(rule.removed_in), advice, rule.note))
    return Report(
        cluster=cluster,
        target=target,
        current=current,
        data_version=kb.data_version,
        applications=tuple(a.ref for a in mine),
        objects=objects,
        findings=tuple(sorted(findings, key=Finding.sort_key)),
        dropped=tuple(dropped),
        notes=tuple(notes),
    )
