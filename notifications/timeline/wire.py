"""Wire shapes of Kubernetes Events as the timeline reads them (only the fields used), as the API server and
kubectl serve them. Applications are ``argocd_lifecycle.application_wire``'s, shared with the preflight."""

from __future__ import annotations

from typing import TypedDict

from argocd_lifecycle.kube.wire import KubeObject, ObjectReference


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
