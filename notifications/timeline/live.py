"""The live source: the Application and Events read through the ``kubernetes`` client (core/kube/client.py).

What is listed, and where:
- the Application (``argoproj.io/v1alpha1``) in ``--namespace``;
- its Events there (field selector ``involvedObject.kind=Application,involvedObject.name=APP``);
- the cluster Secrets in the controller's namespace, to find the destination's Secret, and that
  Secret's Events (our ``Cluster*`` reasons);
- the Events of the ApplicationSet that owns the Application (its ``ownerReferences``), in the
  Application's namespace: the waves of its rollout (our ``Rollout*`` reasons);
- with ``--include-resources``, every Event of the namespaces the app deploys to, on the
  destination cluster, reached with the cluster Secret's credentials (in-cluster: the same client).

Lists are paged (``limit``/``continue``, by ``argocd_lifecycle.kube.lists`` as the preflight's are) and
read as raw JSON, so the same readers serve files and the API alike.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from argocd_lifecycle.application_wire import ApplicationWire
from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.kube.client import Kube, KubeError, KubeNotFound
from argocd_lifecycle.kube.lists import pages
from argocd_lifecycle.kube.names import is_object_name
from argocd_lifecycle.model import (
    CLUSTER_SECRET_LABEL,
    CLUSTER_SECRET_LABEL_VALUE,
    IN_CLUSTER_NAME,
    IN_CLUSTER_SERVER,
)
from argocd_lifecycle.notifications.timeline.application import AppState, read_application
from argocd_lifecycle.notifications.timeline.build import Gathered, Request
from argocd_lifecycle.notifications.timeline.clusters import destination_secrets, read_cluster_secrets
from argocd_lifecycle.notifications.timeline.events import KubeEvent, read_event
from argocd_lifecycle.notifications.timeline.model import TimelineInputError
from argocd_lifecycle.notifications.timeline.wire import CoreEventWire

#: opens a client for a destination cluster from its Secret (raw Secret JSON)
DestinationConnector = Callable[[Mapping[str, Any]], Kube]


def list_events(kube: Kube, namespace: str, field_selector: str = "") -> list[KubeEvent]:
    what = f"list Events in namespace {namespace} on {kube.host}"
    kwargs = {"field_selector": field_selector} if field_selector else {}
    return [
        read_event(cast(CoreEventWire, item), f"{what}: item {i}")
        for i, item in enumerate(pages(kube, what, kube.core.list_namespaced_event, namespace, **kwargs))
    ]


def get_application(kube: Kube, namespace: str, name: str) -> tuple[AppState, Mapping[str, Any]]:
    what = f"get Application {namespace}/{name} on {kube.host}"
    try:
        raw = kube.call(
            what, kube.custom.get_namespaced_custom_object, "argoproj.io", "v1alpha1", namespace, "applications", name
        )
    except KubeNotFound as exc:
        raise TimelineInputError(f"application {name!r} not found in namespace {namespace!r}") from exc
    return read_application(cast(ApplicationWire, raw), f"Application {namespace}/{name}"), raw


def _cluster_secrets(kube: Kube, namespace: str) -> list[Mapping[str, Any]]:
    what = f"list cluster Secrets in namespace {namespace} on {kube.host}"
    selector = f"{CLUSTER_SECRET_LABEL}={CLUSTER_SECRET_LABEL_VALUE}"
    return list(pages(kube, what, kube.core.list_namespaced_secret, namespace, label_selector=selector))


def gather_live(kube: Kube, request: Request, connect_destination: DestinationConnector) -> Gathered:
    app, _ = get_application(kube, request.namespace, request.app)
    selector = f"involvedObject.kind=Application,involvedObject.name={request.app}"
    events = list_events(kube, request.namespace, selector)
    notes: list[str] = []
    argocd_namespace = app.controller_namespace or request.argocd_namespace or request.namespace
    raw_secrets: list[Mapping[str, Any]] = []
    clusters: tuple[ClusterSecret, ...] | None
    try:
        raw_secrets = _cluster_secrets(kube, argocd_namespace)
        parsed, skipped = read_cluster_secrets(
            (s, f"Secret {argocd_namespace}/{(s.get('metadata') or {}).get('name')}") for s in raw_secrets
        )
        clusters = tuple(parsed)
        notes += skipped
    except KubeError as exc:
        if exc.status not in (401, 403):
            raise
        clusters = None
        notes.append(f"cluster Secrets not readable ({exc.status}): the Cluster lane is left out")
    if app.owner is not None and not is_object_name(app.owner.name):
        # the name goes into a field selector: one that is not an object name is not asked about
        notes.append(
            f"ownerReferences name ApplicationSet {app.owner.name[:80]!r}, which is not an object name: "
            "the Rollout lane is left out"
        )
    elif app.owner is not None:
        selector = f"involvedObject.kind=ApplicationSet,involvedObject.name={app.owner.name}"
        try:
            events += list_events(kube, app.owner.namespace or request.namespace, selector)
        except KubeError as exc:
            if exc.status not in (401, 403):
                raise
            notes.append(
                f"Events of ApplicationSet {app.owner.name} not readable ({exc.status}): the Rollout lane is left out"
            )
    mine = destination_secrets(clusters or (), app.destination)
    for secret in mine:
        events += list_events(
            kube,
            secret.namespace or argocd_namespace,
            f"involvedObject.kind=Secret,involvedObject.name={secret.secret_name}",
        )
    resource_events: list[KubeEvent] = []
    if request.include_resources:
        target = _destination(kube, app, mine, raw_secrets, connect_destination)
        for namespace in namespaces(app):
            resource_events += list_events(target, namespace)
    return Gathered(
        app=app,
        events=tuple(events),
        resource_events=tuple(resource_events),
        clusters=clusters,
        notes=tuple(notes),
    )


def namespaces(app: AppState) -> list[str]:
    """Where the Events of the app's resources are: their namespaces, ``default`` for cluster-scoped
    objects (the API server files their Events there), else the destination namespace."""
    found = {r.namespace or "default" for r in app.resources}
    if not found and app.destination.namespace:
        found.add(app.destination.namespace)
    return sorted(found)


def _destination(
    kube: Kube,
    app: AppState,
    mine: list[ClusterSecret],
    raw_secrets: list[Mapping[str, Any]],
    connect: DestinationConnector,
) -> Kube:
    dest = app.destination
    if not mine and (dest.server == IN_CLUSTER_SERVER or (not dest.server and dest.name == IN_CLUSTER_NAME)):
        return kube
    if not mine:
        raise TimelineInputError(
            f"--include-resources: no cluster Secret for destination {dest.server or dest.name!r} "
            f"of application {app.namespace}/{app.name}"
        )
    by_name = {(s.get("metadata") or {}).get("name"): s for s in raw_secrets}
    return connect(by_name[mine[0].secret_name])
