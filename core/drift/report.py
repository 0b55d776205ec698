"""One Application's drift: which objects are OutOfSync, whether the live state moved under an unchanged
revision or a new revision waits for its sync, and, for live drift, who changed what in each object.

``read_app`` reads the Application (hostile JSON, checked where used) into ``AppDrift``; ``report``
joins it with what was read of its live objects (an object, or the reason it could not be read: never a
guess). Pure: the readers of files and clusters are the callers'.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from argocd_lifecycle.drift.attribute import ObjectDrift, ObjectRef, attribute
from argocd_lifecycle.times import format_rfc3339, parse_rfc3339_datetime

#: live objects read per drift episode; the rest are counted
MAX_OBJECTS = 20
#: bytes of one live object's JSON (a Deployment with managedFields is a few KiB; etcd's limit is 1.5 MiB)
MAX_OBJECT_BYTES = 1024 * 1024
#: objects a message lists by name
LISTED = 10
OUT_OF_SYNC = "OutOfSync"

NONE = "none"
LIVE = "live"
REVISION = "revision"


@dataclass(frozen=True)
class AppDrift:
    """What the Application says: its OutOfSync objects, the desired and synced revisions, the last sync."""

    name: str
    namespace: str
    project: str
    out_of_sync: tuple[ObjectRef, ...]
    desired_revision: str
    synced_revision: str
    #: when the last sync finished; None when unknown
    synced_at: datetime | None
    self_heal: bool
    annotations: Mapping[str, str]
    #: the destination as the Application names it (server, else name)
    dest_server: str = ""
    dest_name: str = ""
    #: where Argo CD's controller (and the cluster Secrets) live, when the status says
    controller_namespace: str = ""
    uid: str = ""
    #: when Argo CD last compared the live state (``status.reconciledAt``): a new comparison may see a
    #: new change
    reconciled_at: str = ""

    @property
    def state(self) -> str:
        """``none`` (nothing OutOfSync), ``live`` (the live state moved, the revision is the synced one),
        ``revision`` (a new revision, or none synced yet, not yet synced)."""
        if not self.out_of_sync:
            return NONE
        if self.desired_revision and self.desired_revision == self.synced_revision:
            return LIVE
        return REVISION


@dataclass(frozen=True)
class DriftReport:
    app: AppDrift
    objects: tuple[ObjectDrift, ...] = ()
    #: OutOfSync objects past MAX_OBJECTS, not read
    skipped: int = 0

    @property
    def attributed(self) -> bool:
        return any(o.changes for o in self.objects)


class DriftInputError(ValueError):
    """An Application that is not one (the callers turn it into their own error)."""


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _revision(single: Any, several: Any) -> str:
    if isinstance(several, list) and several and all(isinstance(r, str) for r in several):
        return ",".join(several)
    return _str(single)


def _time(text: Any) -> datetime | None:
    try:
        return parse_rfc3339_datetime(text) if isinstance(text, str) else None
    except ValueError:
        return None


def read_app(raw: Mapping[str, Any]) -> AppDrift:
    if raw.get("kind") != "Application" or not _str(raw.get("apiVersion")).startswith("argoproj.io/"):
        raise DriftInputError("not an Argo CD Application (argoproj.io Application)")
    meta, spec, status = _map(raw.get("metadata")), _map(raw.get("spec")), _map(raw.get("status"))
    name = _str(meta.get("name"))
    if not name:
        raise DriftInputError("the Application has no metadata.name")
    resources = status.get("resources")
    out = tuple(
        ObjectRef(
            _str(r.get("group")),
            _str(r.get("kind")),
            _str(r.get("namespace")),
            _str(r.get("name")),
            _str(r.get("version")),
        )
        for r in (resources if isinstance(resources, list) else [])
        if isinstance(r, Mapping) and r.get("status") == OUT_OF_SYNC and _str(r.get("kind")) and _str(r.get("name"))
    )
    sync = _map(status.get("sync"))
    operation = _map(status.get("operationState"))
    result = _map(operation.get("syncResult"))
    # the revision last synced successfully: the last operation's when it succeeded, else the newest
    # history entry (Argo CD records successful syncs only there)
    succeeded = operation.get("phase") == "Succeeded"
    synced = _revision(result.get("revision"), result.get("revisions")) if succeeded else ""
    synced_at = _time(operation.get("finishedAt")) if succeeded else None
    history = status.get("history")
    if isinstance(history, list) and history and isinstance(history[-1], Mapping):
        last = history[-1]
        synced = synced or _revision(last.get("revision"), last.get("revisions"))
        synced_at = synced_at or _time(last.get("deployedAt"))
    annotations = _map(meta.get("annotations"))
    automated = _map(_map(spec.get("syncPolicy")).get("automated"))
    return AppDrift(
        name=name,
        namespace=_str(meta.get("namespace")),
        project=_str(spec.get("project")),
        out_of_sync=out,
        desired_revision=_revision(sync.get("revision"), sync.get("revisions")),
        synced_revision=synced,
        synced_at=synced_at,
        self_heal=automated.get("selfHeal") is True,
        annotations={k: v for k, v in annotations.items() if isinstance(k, str) and isinstance(v, str)},
        dest_server=_str(_map(spec.get("destination")).get("server")).rstrip("/"),
        dest_name=_str(_map(spec.get("destination")).get("name")),
        controller_namespace=_str(status.get("controllerNamespace")),
        uid=_str(meta.get("uid")),
        reconciled_at=_str(status.get("reconciledAt")),
    )


def to_read(app: AppDrift, max_objects: int = MAX_OBJECTS) -> tuple[ObjectRef, ...]:
    """The objects whose live state attribution reads: live drift only, at most ``max_objects``."""
    return app.out_of_sync[:max_objects] if app.state == LIVE else ()


def report(
    app: AppDrift, reads: Mapping[ObjectRef, Mapping[str, Any] | str], max_objects: int = MAX_OBJECTS
) -> DriftReport:
    """Attribution of each object ``to_read`` names: ``reads`` holds its live object, or why it could
    not be read."""
    wanted = to_read(app, max_objects)
    objects: list[ObjectDrift] = []
    for ref in wanted:
        got = reads.get(ref, "not read")
        if isinstance(got, str):
            objects.append(ObjectDrift(ref, unattributed=got))
        else:
            objects.append(attribute(got, ref, app.synced_at))
    skipped = len(app.out_of_sync) - len(wanted) if app.state == LIVE else 0
    return DriftReport(app, tuple(objects), skipped)


def since_text(app: AppDrift) -> str:
    return format_rfc3339(app.synced_at) if app.synced_at else ""
