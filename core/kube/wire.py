"""Kubernetes wire shapes the parts read (TypedDicts holding only the fields the code uses).

Objects come from the API server or from ``kubectl get -o json`` files; every field may be
missing, so readers check each value where they use it.
"""

from __future__ import annotations

from typing import TypedDict


class ObjectMeta(TypedDict, total=False):
    name: str
    namespace: str
    uid: str
    resourceVersion: str
    creationTimestamp: str
    labels: dict[str, str]
    annotations: dict[str, str]


class ObjectReference(TypedDict, total=False):
    """An Event's ``involvedObject`` (core/v1) or ``regarding`` (events.k8s.io/v1)."""

    apiVersion: str
    kind: str
    name: str
    namespace: str
    uid: str


class KubeObject(TypedDict, total=False):
    """What every object carries: its type and its metadata."""

    apiVersion: str
    kind: str
    metadata: ObjectMeta
