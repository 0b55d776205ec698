"""Wire shapes read by the timeline (only the fields used), as the API server and kubectl serve them."""

from __future__ import annotations

from typing import TypedDict

from argocd_lifecycle.kube_wire import KubeObject, ObjectReference


class EventSourceWire(TypedDict, total=False):
    component: str
    host: str


class EventSeriesWire(TypedDict, total=False):
    count: int
    lastObservedTime: str


class _EventWire(KubeObject, total=False):
    """What an Event shows through either API."""

    reason: str
    type: str
    eventTime: str | None
    series: EventSeriesWire | None


class CoreEventWire(_EventWire, total=False):
    """core/v1 Event (``kubectl get events -o json``)."""

    involvedObject: ObjectReference
    message: str
    source: EventSourceWire
    reportingComponent: str
    firstTimestamp: str | None
    lastTimestamp: str | None
    count: int


class EventsV1EventWire(_EventWire, total=False):
    """events.k8s.io/v1 Event (``kubectl get events.events.k8s.io -o json``)."""

    regarding: ObjectReference
    note: str
    reportingController: str
    deprecatedSource: EventSourceWire
    deprecatedFirstTimestamp: str | None
    deprecatedLastTimestamp: str | None
    deprecatedCount: int


class DestinationWire(TypedDict, total=False):
    server: str
    name: str
    namespace: str


class InitiatedByWire(TypedDict, total=False):
    username: str
    automated: bool


class HistoryWire(TypedDict, total=False):
    id: int
    revision: str
    revisions: list[str]
    deployedAt: str
    deployStartedAt: str
    initiatedBy: InitiatedByWire


class ResourceStatusWire(TypedDict, total=False):
    group: str
    version: str
    kind: str
    namespace: str
    name: str


class SyncResultResourceWire(ResourceStatusWire, total=False):
    status: str
    message: str
    hookType: str
    hookPhase: str
    syncPhase: str


class SyncResultWire(TypedDict, total=False):
    revision: str
    revisions: list[str]
    resources: list[SyncResultResourceWire]


class OperationWire(TypedDict, total=False):
    initiatedBy: InitiatedByWire


class OperationStateWire(TypedDict, total=False):
    operation: OperationWire
    phase: str
    message: str
    startedAt: str
    finishedAt: str
    retryCount: int
    syncResult: SyncResultWire


class HealthWire(TypedDict, total=False):
    status: str
    message: str
    lastTransitionTime: str


class ConditionWire(TypedDict, total=False):
    type: str
    message: str
    lastTransitionTime: str


class ApplicationStatusWire(TypedDict, total=False):
    operationState: OperationStateWire
    history: list[HistoryWire]
    health: HealthWire
    conditions: list[ConditionWire]
    resources: list[ResourceStatusWire]
    controllerNamespace: str


class ApplicationSpecWire(TypedDict, total=False):
    project: str
    destination: DestinationWire


class ApplicationWire(KubeObject, total=False):
    spec: ApplicationSpecWire
    status: ApplicationStatusWire
