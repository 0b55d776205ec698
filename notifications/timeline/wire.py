"""Wire shapes read by the timeline (only the fields used), as the API server and kubectl serve them."""

from __future__ import annotations

from typing import TypedDict


class ObjectMetaWire(TypedDict, total=False):
    name: str
    namespace: str
    uid: str
    creationTimestamp: str
    annotations: dict[str, str]
    labels: dict[str, str]


class ObjectReferenceWire(TypedDict, total=False):
    apiVersion: str
    kind: str
    name: str
    namespace: str
    uid: str


class EventSourceWire(TypedDict, total=False):
    component: str
    host: str


class EventSeriesWire(TypedDict, total=False):
    count: int
    lastObservedTime: str


class CoreEventWire(TypedDict, total=False):
    """core/v1 Event (``kubectl get events -o json``)."""

    apiVersion: str
    kind: str
    metadata: ObjectMetaWire
    involvedObject: ObjectReferenceWire
    reason: str
    message: str
    type: str
    source: EventSourceWire
    reportingComponent: str
    firstTimestamp: str | None
    lastTimestamp: str | None
    eventTime: str | None
    count: int
    series: EventSeriesWire | None


class EventsV1EventWire(TypedDict, total=False):
    """events.k8s.io/v1 Event (``kubectl get events.events.k8s.io -o json``)."""

    apiVersion: str
    kind: str
    metadata: ObjectMetaWire
    regarding: ObjectReferenceWire
    reason: str
    note: str
    type: str
    reportingController: str
    deprecatedSource: EventSourceWire
    eventTime: str | None
    deprecatedFirstTimestamp: str | None
    deprecatedLastTimestamp: str | None
    deprecatedCount: int
    series: EventSeriesWire | None


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


class SyncResultResourceWire(TypedDict, total=False):
    group: str
    version: str
    kind: str
    namespace: str
    name: str
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


class ResourceStatusWire(TypedDict, total=False):
    group: str
    version: str
    kind: str
    namespace: str
    name: str


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


class ApplicationWire(TypedDict, total=False):
    apiVersion: str
    kind: str
    metadata: ObjectMetaWire
    spec: ApplicationSpecWire
    status: ApplicationStatusWire
