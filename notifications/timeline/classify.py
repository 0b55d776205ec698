"""Which lane an Event belongs to, and which Events belong to an application at all.

Argo CD's application controller reports sync and health transitions as ``ResourceUpdated`` with
``Updated sync status: A -> B`` / ``Updated health status: A -> B``; ``OperationStarted`` /
``OperationCompleted``, ``ResourceCreated`` / ``ResourceDeleted`` of the application, spec updates
and ``ResourceActionRan`` are operations. The ``Cluster*`` reasons the generator records on cluster
Secrets (``argocd_lifecycle.model.Reason``) go to the Cluster lane, the ``Rollout*`` ones it records on the
owning ApplicationSet (``RolloutReason``) to the Rollout lane; every other Event is about a managed resource.
"""

from __future__ import annotations

from collections.abc import Iterable

from argocd_lifecycle.model import EVENT_SOURCE, DriftReason, Reason, RolloutReason
from argocd_lifecycle.notifications.timeline.events import KubeEvent
from argocd_lifecycle.notifications.timeline.model import Entry, Lane, ObjectRef

SYNC_PREFIX = "Updated sync status"
HEALTH_PREFIX = "Updated health status"
RESOURCE_DELETED_PREFIX = "deleted resource "
_CLUSTER_REASONS = frozenset(r.value for r in Reason)

#: kinds whose objects a workload creates, named ``<owner name>-<suffix>`` (ownerReferences are not
#: on Events, so the name is all that ties a Pod's Events to the Deployment the app manages)
CHILD_KINDS: dict[str, frozenset[str]] = {
    "Deployment": frozenset({"ReplicaSet", "Pod"}),
    "Rollout": frozenset({"ReplicaSet", "Pod", "AnalysisRun", "Experiment"}),
    "ReplicaSet": frozenset({"Pod"}),
    "StatefulSet": frozenset({"Pod", "ControllerRevision"}),
    "DaemonSet": frozenset({"Pod", "ControllerRevision"}),
    "Job": frozenset({"Pod"}),
    "CronJob": frozenset({"Job", "Pod"}),
    "Service": frozenset({"Endpoints", "EndpointSlice"}),
}


_DRIFT_REASONS = frozenset(r.value for r in DriftReason)
_ROLLOUT_REASONS = frozenset(r.value for r in RolloutReason)


def is_rollout_event(event: KubeEvent) -> bool:
    """One of the generator's rollout Events (``Rollout*``, on an ApplicationSet)."""
    return event.reason in _ROLLOUT_REASONS and event.object.kind == "ApplicationSet"


def is_cluster_event(event: KubeEvent) -> bool:
    return event.reason in _CLUSTER_REASONS or (event.object.kind == "Secret" and event.source == EVENT_SOURCE)


def is_about(event: KubeEvent, app: ObjectRef) -> bool:
    """An Event whose involvedObject is the Application (its namespace may be left empty)."""
    obj = event.object
    return (
        obj.kind == app.kind
        and obj.name == app.name
        and (obj.namespace or event.namespace) == app.namespace
        and (not obj.api_version or obj.api_version.split("/")[0] == app.api_version.split("/")[0])
    )


def app_lane(event: KubeEvent) -> Lane:
    if event.reason in _DRIFT_REASONS:  # the generator's drift episodes: who changed what, and their end
        return Lane.SYNC
    if event.reason == "ResourceUpdated" and event.message.startswith(SYNC_PREFIX):
        return Lane.SYNC
    if event.reason == "ResourceUpdated" and event.message.startswith(HEALTH_PREFIX):
        return Lane.HEALTH
    if event.reason == "ResourceDeleted" and event.message.startswith(RESOURCE_DELETED_PREFIX):
        return Lane.RESOURCE
    return Lane.OPERATION


def belongs(obj: ObjectRef, resources: Iterable[ObjectRef]) -> bool:
    """The object is a managed resource, or a child a workload named after itself, in its namespace.

    Argo CD lists namespaced resources with their namespace and cluster-scoped ones without, as
    Events name their objects, so namespaces compare as they are.
    """
    for res in resources:
        if res.namespace != obj.namespace:
            continue
        if obj.kind == res.kind and obj.name == res.name:
            return True
        if obj.kind in CHILD_KINDS.get(res.kind, ()) and (obj.name == res.name or obj.name.startswith(res.name + "-")):
            return True
    return False


def to_entry(event: KubeEvent, lane: Lane, seq: int) -> Entry:
    return Entry(
        time=event.first,
        last_time=event.last,
        lane=lane,
        reason=event.reason,
        object=event.object,
        message=event.message,
        source=event.source,
        count=event.count,
        type=event.type,
        timestamps_lost=event.count > 1,
        seq=seq,
    )
