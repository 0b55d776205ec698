"""Wire shape of Argo CD Applications (``argoproj.io/v1alpha1``): the fields the parts read.

The preflight reads the destination, the sources and ``status.resources``; the drift report ``status.sync``,
``status.resources`` and the last operation; the timeline reads the
destination, ``status.history``, the last operation, health and conditions. Objects come from the API
server or from ``kubectl get applications -o json``; every field may be missing or of the wrong type, so
each reader checks a value where it uses it.
"""

from __future__ import annotations

from typing import TypedDict

from argocd_lifecycle.kube.wire import KubeObject


class DestinationWire(TypedDict, total=False):
    server: str
    name: str
    namespace: str


class PluginParameterWire(TypedDict, total=False):
    name: str
    string: str


class PluginWire(TypedDict, total=False):
    name: str
    parameters: list[PluginParameterWire]


class SourceWire(TypedDict, total=False):
    repoURL: str
    path: str
    chart: str
    plugin: PluginWire


class ApplicationSpecWire(TypedDict, total=False):
    project: str
    destination: DestinationWire
    source: SourceWire
    sources: list[SourceWire]


class ResourceStatusWire(TypedDict, total=False):
    """One entry of ``status.resources``: what the Application deploys, as Argo CD last compared it."""

    group: str
    version: str
    kind: str
    namespace: str
    name: str
    #: ``Synced`` or ``OutOfSync`` (the drift report reads it)
    status: str


class SyncStatusWire(TypedDict, total=False):
    """``status.sync``: the comparison's verdict and the revision(s) it compared against (the desired one)."""

    status: str
    revision: str
    revisions: list[str]


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


class SyncResultResourceWire(ResourceStatusWire, total=False):
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
    resources: list[ResourceStatusWire]
    sync: SyncStatusWire
    #: ``Plugin`` when a config-management plugin rendered it (found by name or by discovery)
    sourceType: str
    sourceTypes: list[str]
    operationState: OperationStateWire
    history: list[HistoryWire]
    health: HealthWire
    conditions: list[ConditionWire]
    controllerNamespace: str


class ApplicationWire(KubeObject, total=False):
    spec: ApplicationSpecWire
    status: ApplicationStatusWire
