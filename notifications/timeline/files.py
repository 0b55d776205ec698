"""The offline source: ``kubectl get ... -o json`` output saved in a support bundle.

Each file holds one object or a List (``List``, ``EventList``, ``ApplicationList``, ``SecretList``)
of core/v1 or events.k8s.io Events, Argo CD Applications and cluster Secrets, in any mix. Secrets
that are not cluster Secrets are skipped; any other kind is an error naming the file and item. Files are
read by ``argocd_lifecycle.kube.lists`` (bounded in size, one message per problem), as the preflight's are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from argocd_lifecycle.application_wire import ApplicationWire
from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.kube.lists import items, load_document
from argocd_lifecycle.notifications.timeline.application import AppState, read_application
from argocd_lifecycle.notifications.timeline.build import Gathered, Request
from argocd_lifecycle.notifications.timeline.classify import is_about
from argocd_lifecycle.notifications.timeline.clusters import read_cluster_secrets
from argocd_lifecycle.notifications.timeline.events import KubeEvent, is_events_api, read_event
from argocd_lifecycle.notifications.timeline.model import ObjectRef, TimelineInputError
from argocd_lifecycle.notifications.timeline.wire import CoreEventWire

EXPECTED = "expected Events, Argo CD Applications or cluster Secrets"


@dataclass(frozen=True)
class Bundle:
    events: tuple[KubeEvent, ...]
    apps: tuple[AppState, ...]
    #: None when no file held a cluster Secret
    clusters: tuple[ClusterSecret, ...] | None
    notes: tuple[str, ...] = ()


def read_files(paths: Sequence[Path]) -> Bundle:
    events: list[KubeEvent] = []
    apps: list[AppState] = []
    secrets: list[tuple[Mapping[str, Any], str]] = []
    for path in paths:
        for item, where in items(load_document(path), str(path)):
            kind, api = item.get("kind"), item.get("apiVersion")
            if kind == "Event" or (not kind and ("involvedObject" in item or is_events_api(item))):
                events.append(read_event(cast(CoreEventWire, item), where))
            elif kind == "Application" and isinstance(api, str) and api.startswith("argoproj.io/"):
                apps.append(read_application(cast(ApplicationWire, item), where))
            elif kind == "Secret":
                secrets.append((item, where))
            else:
                shown = f"{api} {kind}" if kind else "an object without kind"
                raise TimelineInputError(f"{where}: is {shown}; {EXPECTED}")
    clusters, notes = read_cluster_secrets(secrets)
    return Bundle(tuple(events), tuple(apps), tuple(clusters) if clusters or notes else None, tuple(notes))


def gather(bundle: Bundle, request: Request) -> Gathered:
    """Pick the application; from files every Event may be about it or one of its resources."""
    matches = [a for a in bundle.apps if a.name == request.app and a.namespace == request.namespace]
    app = matches[0] if matches else None
    notes = list(bundle.notes)
    if app is None:
        ref = ObjectRef("Application", request.app, request.namespace, "argoproj.io/v1alpha1")
        if not any(is_about(e, ref) for e in bundle.events):
            held = sorted({f"{a.namespace}/{a.name}" for a in bundle.apps})
            hint = f" (the files hold {', '.join(held)})" if held else ""
            raise TimelineInputError(f"application {request.app!r} not found in namespace {request.namespace!r}{hint}")
        notes.append("no Application object in the files: status history and resource list unavailable")
    return Gathered(
        app=app,
        events=bundle.events,
        resource_events=bundle.events if request.include_resources else (),
        clusters=bundle.clusters,
        notes=tuple(notes),
    )
