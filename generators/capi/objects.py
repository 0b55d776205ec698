"""Cluster API objects, from the API's JSON (read field by field) to the frozen values the rest uses.

Field names follow Cluster API's v1beta2 Go types (``Cluster``, ``KubeadmControlPlane``,
``MachineDeployment``, ``MachinePool``). The API server has validated the objects against the CRD
schemas, but every value read is still checked here, once: a wrong type is an ``InvalidCapiObject``
naming the object and the field, never a crash deeper in. Strings are bounded and hold no control
character (the CRDs bound most, not all, and the values reach Events, logs and annotations).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.generators.capi.names import (
    CONTROL_PLANE_GROUP,
    CONTROL_PLANE_INITIALIZED,
    KUBEADM_CONTROL_PLANE,
)

#: longer than any name, version or reference Cluster API writes (its CRDs allow versions of 256)
MAX_STRING = 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class InvalidCapiObject(LifecycleError):
    """A CAPI object we cannot read; the message names the object and the field."""


@dataclass(frozen=True, order=True)
class ClusterKey:
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True)
class CapiCluster:
    key: ClusterKey
    uid: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    deleting: bool = False
    initialized: bool = False
    #: ``spec.topology.version`` of a ClusterClass cluster, "" for a plain one
    topology_version: str = ""
    #: ``spec.controlPlaneRef`` as (apiGroup, kind, name), or None
    control_plane: tuple[str, str, str] | None = None
    #: what runs: ``status.controlPlane.versions`` / ``status.workers.versions`` (version strings)
    control_plane_versions: tuple[str, ...] = ()
    worker_versions: tuple[str, ...] = ()

    @property
    def kubeadm_control_plane(self) -> str:
        """The name of its KubeadmControlPlane, or "" when the control plane is of another kind."""
        ref = self.control_plane
        return ref[2] if ref and ref[0] == CONTROL_PLANE_GROUP and ref[1] == KUBEADM_CONTROL_PLANE else ""


@dataclass(frozen=True)
class ControlPlane:
    """A KubeadmControlPlane: the desired version of a plain cluster, and what its machines run."""

    namespace: str
    name: str
    version: str = ""
    versions: tuple[str, ...] = ()


@dataclass(frozen=True, order=True)
class WorkerGroup:
    """A MachineDeployment or MachinePool: its cluster and its desired replicas (None when unset)."""

    kind: str
    namespace: str
    name: str
    cluster: str = ""
    replicas: int | None = None


def _where(obj: Mapping[str, Any], kind: str) -> str:
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    return f"{kind} {meta.get('namespace') or '?'}/{meta.get('name') or '?'}"


def _map(value: Any, where: str, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidCapiObject(f"{where}: {path} must be an object")
    return value


def _str(value: Any, where: str, path: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidCapiObject(f"{where}: {path} must be a string")
    if len(value) > MAX_STRING or _CONTROL.search(value):
        raise InvalidCapiObject(f"{where}: {path} must be at most {MAX_STRING} characters, none a control character")
    return value


def _replicas(value: Any, where: str, path: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100_000:
        raise InvalidCapiObject(f"{where}: {path} must be a whole number from 0 to 100000")
    return value


def _versions(value: Any, where: str, path: str) -> tuple[str, ...]:
    """A ``[]StatusVersion`` list: ``[{version, replicas}]`` -> the version strings."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > 100:
        raise InvalidCapiObject(f"{where}: {path} must be a list of at most 100 entries")
    return tuple(
        _str(_map(v, where, f"{path}[{i}]").get("version"), where, f"{path}[{i}].version") for i, v in enumerate(value)
    )


def _meta(obj: Mapping[str, Any], kind: str) -> tuple[str, str, Mapping[str, Any], str]:
    where = _where(obj, kind)
    meta = _map(obj.get("metadata"), where, "metadata")
    name, namespace = (
        _str(meta.get("name"), where, "metadata.name"),
        _str(meta.get("namespace"), where, "metadata.namespace"),
    )
    if not name or not namespace:
        raise InvalidCapiObject(f"{where}: metadata.name and metadata.namespace are required")
    return namespace, name, meta, where


def parse_cluster(obj: Mapping[str, Any]) -> CapiCluster:
    namespace, name, meta, where = _meta(obj, "Cluster")
    spec = _map(obj.get("spec"), where, "spec")
    status = _map(obj.get("status"), where, "status")
    labels = _map(meta.get("labels"), where, "metadata.labels")
    topology = _map(spec.get("topology"), where, "spec.topology")
    ref = _map(spec.get("controlPlaneRef"), where, "spec.controlPlaneRef")
    control_plane = None
    if ref:
        group, kind, cp_name = (
            _str(ref.get(k), where, f"spec.controlPlaneRef.{k}") for k in ("apiGroup", "kind", "name")
        )
        control_plane = (group, kind, cp_name)
    initialization = _map(status.get("initialization"), where, "status.initialization")
    initialized = initialization.get("controlPlaneInitialized") is True
    conditions = status.get("conditions") or []
    if not isinstance(conditions, list):
        raise InvalidCapiObject(f"{where}: status.conditions must be a list")
    for i, raw in enumerate(conditions):
        cond = _map(raw, where, f"status.conditions[{i}]")
        if cond.get("type") == CONTROL_PLANE_INITIALIZED and cond.get("status") == "True":
            initialized = True  # the condition and the contract field say the same thing
    return CapiCluster(
        key=ClusterKey(namespace, name),
        uid=_str(meta.get("uid"), where, "metadata.uid"),
        labels={str(k): _str(v, where, f"metadata.labels[{k}]") for k, v in labels.items()},
        deleting=bool(meta.get("deletionTimestamp")),
        initialized=initialized,
        topology_version=_str(topology.get("version"), where, "spec.topology.version"),
        control_plane=control_plane,
        control_plane_versions=_versions(
            _map(status.get("controlPlane"), where, "status.controlPlane").get("versions"),
            where,
            "status.controlPlane.versions",
        ),
        worker_versions=_versions(
            _map(status.get("workers"), where, "status.workers").get("versions"), where, "status.workers.versions"
        ),
    )


def parse_control_plane(obj: Mapping[str, Any]) -> ControlPlane:
    namespace, name, _, where = _meta(obj, KUBEADM_CONTROL_PLANE)
    spec = _map(obj.get("spec"), where, "spec")
    status = _map(obj.get("status"), where, "status")
    versions = _versions(status.get("versions"), where, "status.versions")
    if not versions and status.get("version"):  # the deprecated single field, older controllers
        versions = (_str(status.get("version"), where, "status.version"),)
    return ControlPlane(namespace, name, _str(spec.get("version"), where, "spec.version"), versions)


def parse_worker_group(obj: Mapping[str, Any], kind: str) -> WorkerGroup:
    namespace, name, _, where = _meta(obj, kind)
    spec = _map(obj.get("spec"), where, "spec")
    cluster = _str(spec.get("clusterName"), where, "spec.clusterName")
    return WorkerGroup(kind, namespace, name, cluster, _replicas(spec.get("replicas"), where, "spec.replicas"))
