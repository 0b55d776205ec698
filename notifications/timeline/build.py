"""Assemble one ordered timeline from what a source (live or files) gathered."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.notifications.timeline.application import APPLICATION_API, AppState
from argocd_lifecycle.notifications.timeline.classify import (
    HEALTH_PREFIX,
    app_lane,
    belongs,
    is_about,
    is_cluster_event,
    is_rollout_event,
    to_entry,
)
from argocd_lifecycle.notifications.timeline.clusters import destination_secrets
from argocd_lifecycle.notifications.timeline.events import KubeEvent
from argocd_lifecycle.notifications.timeline.model import (
    Destination,
    Entry,
    Lane,
    ObjectRef,
    Timeline,
    TimelineInputError,
    Window,
)

#: a status timestamp and the Event reporting the same transition are this close at most
_SAME_TRANSITION = timedelta(seconds=2)


@dataclass(frozen=True)
class Gathered:
    """What a source found. ``clusters`` is None when cluster Secrets could not be read."""

    app: AppState | None
    #: Events of the Argo CD side (the Application's, the cluster Secrets')
    events: tuple[KubeEvent, ...]
    #: Events of the destination side (managed resources), when asked for
    resource_events: tuple[KubeEvent, ...] = ()
    clusters: tuple[ClusterSecret, ...] | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Request:
    app: str
    namespace: str
    #: where Argo CD runs (its cluster Secrets), when the Application does not say (status.controllerNamespace)
    argocd_namespace: str = ""
    include_resources: bool = False
    since: timedelta | None = None
    since_text: str | None = None
    #: the window's end for live reads; None: the newest entry found (files)
    now: datetime | None = None


def _unique(events: Iterable[KubeEvent]) -> list[KubeEvent]:
    seen: set[tuple[str, str, datetime]] = set()
    out = []
    for event in events:
        key = (event.namespace, event.name, event.first)
        if event.name and key in seen:
            continue
        seen.add(key)
        out.append(event)
    return out


def _health_reported(status: Entry, events: Sequence[Entry]) -> bool:
    """status.health only repeats a transition an Event already reports."""
    state = status.message.removeprefix("health is ").split(" ", 1)[0]
    return any(
        e.lane is Lane.HEALTH
        and e.message.startswith(HEALTH_PREFIX)
        and e.message.split("-> ", 1)[-1].split(" ", 1)[0] == state
        and abs(e.time - status.time) <= _SAME_TRANSITION
        for e in events
    )


def _resource_entries(gathered: Gathered, app_ref: ObjectRef, start: int) -> tuple[list[Entry], list[str]]:
    app = gathered.app
    pool = [
        e
        for e in _unique(gathered.resource_events)
        if not is_about(e, app_ref)
        and not is_cluster_event(e)
        and not is_rollout_event(e)
        and e.object.kind != "Application"
    ]
    if app is None:
        return [], ["--include-resources: no Application object, so its resources are unknown"]
    if app.resources:
        chosen = [e for e in pool if belongs(e.object, app.resources)]
    else:
        chosen = [e for e in pool if app.destination.namespace and e.namespace == app.destination.namespace]
    return [to_entry(e, Lane.RESOURCE, start + i) for i, e in enumerate(chosen)], []


def _cluster_entries(gathered: Gathered, dest: Destination, start: int) -> tuple[list[Entry], list[str]]:
    cluster_events = [e for e in _unique(gathered.events) if is_cluster_event(e)]
    if not cluster_events:
        return [], []
    if gathered.clusters is None:
        return [], [
            f"{len(cluster_events)} cluster Event(s) left out: no cluster Secrets to tell which one is "
            "this application's destination"
        ]
    secrets = {(s.namespace, s.secret_name) for s in destination_secrets(gathered.clusters, dest)}
    chosen = [
        e
        for e in cluster_events
        if e.object.kind == "Secret" and ((e.object.namespace or e.namespace), e.object.name) in secrets
    ]
    return [to_entry(e, Lane.CLUSTER, start + i) for i, e in enumerate(chosen)], []


def _rollout_entries(gathered: Gathered, start: int) -> tuple[list[Entry], list[str]]:
    """The rollout Events of the ApplicationSet that owns the Application (its waves)."""
    rollout_events = [e for e in _unique(gathered.events) if is_rollout_event(e)]
    if not rollout_events:
        return [], []
    owner = gathered.app.owner if gathered.app else None
    if owner is None:
        if gathered.app is not None:
            return [], []  # no ApplicationSet owns it: another one's rollout is not its story
        return [], [
            f"{len(rollout_events)} rollout Event(s) left out: no Application object to tell which "
            "ApplicationSet owns it"
        ]
    chosen = [e for e in rollout_events if is_about(e, owner)]
    return [to_entry(e, Lane.ROLLOUT, start + i) for i, e in enumerate(chosen)], []


def build(request: Request, gathered: Gathered) -> Timeline:
    app = gathered.app
    app_ref = app.ref if app else ObjectRef("Application", request.app, request.namespace, APPLICATION_API)
    own = [e for e in _unique(gathered.events) if is_about(e, app_ref)]
    if app is None and not own:
        raise TimelineInputError(f"application {request.app!r} not found in namespace {request.namespace!r}")
    notes = list(gathered.notes)
    entries = [to_entry(e, app_lane(e), i) for i, e in enumerate(own)]
    event_entries = list(entries)
    if app is not None:
        entries += [
            replace(s, seq=len(entries) + i)
            for i, s in enumerate(app.entries)
            if s.source != "status.health" or not _health_reported(s, event_entries)
        ]
    dest = app.destination if app else Destination()
    cluster, cluster_notes = _cluster_entries(gathered, dest, len(entries))
    entries += cluster
    notes += cluster_notes
    rollout, rollout_notes = _rollout_entries(gathered, len(entries))
    entries += rollout
    notes += rollout_notes
    if request.include_resources:
        resources, resource_notes = _resource_entries(gathered, app_ref, len(entries))
        entries += resources
        notes += resource_notes
    entries.sort(key=lambda e: (e.time, e.seq))
    window = _window(request, entries)
    if window.start is not None:
        start, end = window.start, window.end
        entries = [e for e in entries if e.last_time >= start and (end is None or e.time <= end)]
    return Timeline(
        app=request.app,
        namespace=request.namespace,
        entries=tuple(replace(e, seq=i) for i, e in enumerate(entries)),
        destination=dest,
        project=app.project if app else "",
        window=window,
        notes=tuple(notes),
    )


def _window(request: Request, entries: Sequence[Entry]) -> Window:
    if request.since is None:
        return Window()
    end = request.now or max((e.last_time for e in entries), default=None)
    if end is None:
        return Window(since=request.since_text)
    return Window(since=request.since_text, start=end - request.since, end=end)
