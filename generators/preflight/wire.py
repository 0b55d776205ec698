"""Wire shapes of Argo CD Applications as the preflight reads them (only the fields used).

They come from the API server or from ``kubectl get applications -o json``; every field may be missing
or of the wrong type, so ``apps.read_application`` checks each value where it uses it.
"""

from __future__ import annotations

from typing import TypedDict

from argocd_lifecycle.kube_wire import KubeObject


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


class ApplicationStatusWire(TypedDict, total=False):
    resources: list[ResourceStatusWire]
    #: ``Plugin`` when a config-management plugin rendered it (found by name or by discovery)
    sourceType: str
    sourceTypes: list[str]


class ApplicationWire(KubeObject, total=False):
    spec: ApplicationSpecWire
    status: ApplicationStatusWire
