"""Read an Argo CD Application: where it deploys, what it manages, and the story its status keeps.

``status.history`` outlives Events (kept one hour): each deployment becomes a span from
``deployStartedAt`` to ``deployedAt``. ``status.operationState`` is the last operation, with its
retries; its failed resources and hooks name the culprit. ``status.health.lastTransitionTime`` and
``status.conditions`` are dated too.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from argocd_lifecycle.application_wire import ApplicationWire
from argocd_lifecycle.notifications.timeline.events import field, mapping, text, timestamp
from argocd_lifecycle.notifications.timeline.model import (
    Destination,
    Entry,
    Lane,
    ObjectRef,
    TimelineInputError,
)

APPLICATION_API = "argoproj.io/v1alpha1"
_FAILED_RESULTS = {"SyncFailed"}
_FAILED_HOOKS = {"Failed", "Error"}


@dataclass(frozen=True)
class AppState:
    name: str
    namespace: str
    project: str
    destination: Destination
    #: managed resources (status.resources) and the resources of the last operation (hooks included)
    resources: tuple[ObjectRef, ...]
    controller_namespace: str
    entries: tuple[Entry, ...]
    #: the ApplicationSet that owns it (``metadata.ownerReferences``), whose rollout's waves are its story too
    owner: ObjectRef | None = None

    @property
    def ref(self) -> ObjectRef:
        return ObjectRef("Application", self.name, self.namespace, APPLICATION_API)


def _short(revision: str) -> str:
    return revision[:7] if len(revision) == 40 else revision


def _initiator(initiated: Mapping[str, Any], where: str) -> str:
    if field(initiated, "automated", bool, where):
        return "automated"
    user = text(initiated, "username", where)
    return f"by {user}" if user else ""


def _items(obj: Mapping[str, Any], key: str, where: str) -> list[Mapping[str, Any]]:
    values = field(obj, key, list, where) or []
    for index, value in enumerate(values):
        if not isinstance(value, dict):
            raise TimelineInputError(f"{where}: {key}[{index}] should be an object")
    return values


def _dated(
    status: Mapping[str, Any], key: str, time_key: str, where: str
) -> Iterator[tuple[Mapping[str, Any], str, datetime]]:
    """The items of ``status.<key>`` that carry ``time_key``: (item, where it is, that time)."""
    for index, item in enumerate(_items(status, key, where)):
        at = f"{where}: status.{key}[{index}]"
        when = timestamp(item, time_key, at)
        if when is not None:
            yield item, at, when


def _history(status: Mapping[str, Any], ref: ObjectRef, where: str) -> list[Entry]:
    entries = []
    for item, at, deployed in _dated(status, "history", "deployedAt", where):
        started = timestamp(item, "deployStartedAt", at) or deployed
        revision = text(item, "revision", at) or ",".join(str(r) for r in (field(item, "revisions", list, at) or []))
        details = [f"history id {field(item, 'id', int, at)}"]
        who = _initiator(mapping(item, "initiatedBy", at), at)
        if who:
            details.append(who)
        message = f"deployed {_short(revision) or 'unknown revision'} ({', '.join(details)})"
        entries.append(
            _status_entry(started, deployed, Lane.OPERATION, "Deployed", ref, message=message, part="history")
        )
    return entries


def _operation(status: Mapping[str, Any], ref: ObjectRef, where: str) -> list[Entry]:
    state = mapping(status, "operationState", where)
    at = f"{where}: status.operationState"
    started = timestamp(state, "startedAt", at)
    if started is None:
        return []
    finished = timestamp(state, "finishedAt", at)
    phase = text(state, "phase", at) or "Unknown"
    retries = field(state, "retryCount", int, at) or 0
    who = _initiator(mapping(mapping(state, "operation", at), "initiatedBy", at), at)
    parts = [f"sync {phase.lower()}"]
    if who:
        parts.append(f"({who}{f', {retries} retries' if retries else ''})")
    elif retries:
        parts.append(f"({retries} retries)")
    message = " ".join(parts)
    detail = text(state, "message", at)
    if detail:
        message += f": {detail}"
    failed = phase in {"Failed", "Error"}
    end = finished or started
    entries = [
        _status_entry(
            started,
            end,
            Lane.OPERATION,
            f"Operation{phase}",
            ref,
            message=message,
            part="operationState",
            warning=failed,
        )
    ]
    for index, res in enumerate(_items(mapping(state, "syncResult", at), "resources", at)):
        rat = f"{at}.syncResult.resources[{index}]"
        result, hook_phase = text(res, "status", rat), text(res, "hookPhase", rat)
        if result not in _FAILED_RESULTS and hook_phase not in _FAILED_HOOKS:
            continue
        obj = _resource_ref(res, rat)
        hook = text(res, "hookType", rat)
        what = f"{hook} hook {hook_phase.lower()}" if hook else f"sync {result or hook_phase}"
        reason = "HookFailed" if hook else "SyncFailed"
        note = text(res, "message", rat)
        entries.append(
            _status_entry(
                end,
                end,
                Lane.RESOURCE,
                reason,
                obj,
                message=f"{what}: {note}" if note else what,
                part="operationState",
                warning=True,
            )
        )
    return entries


def _health(status: Mapping[str, Any], ref: ObjectRef, where: str) -> list[Entry]:
    health = mapping(status, "health", where)
    at = f"{where}: status.health"
    since = timestamp(health, "lastTransitionTime", at)
    state = text(health, "status", at)
    if since is None or not state:
        return []
    note = text(health, "message", at)
    message = f"health is {state}" + (f" ({note})" if note else "")
    return [
        _status_entry(
            since, since, Lane.HEALTH, "HealthStatus", ref, message=message, part="health", warning=state == "Degraded"
        )
    ]


def _conditions(status: Mapping[str, Any], ref: ObjectRef, where: str) -> list[Entry]:
    entries = []
    for cond, at, since in _dated(status, "conditions", "lastTransitionTime", where):
        kind = text(cond, "type", at) or "Condition"
        entries.append(
            _status_entry(
                since, since, Lane.SYNC, kind, ref, message=text(cond, "message", at), part="conditions", warning=True
            )
        )
    return entries


def _status_entry(
    start: datetime,
    end: datetime,
    lane: Lane,
    reason: str,
    ref: ObjectRef,
    *,
    message: str,
    part: str,
    warning: bool = False,
) -> Entry:
    return Entry(
        time=start,
        last_time=max(start, end),
        lane=lane,
        reason=reason,
        object=ref,
        message=message,
        source=f"status.{part}",
        type="Warning" if warning else "Normal",
    )


def _resource_ref(res: Mapping[str, Any], where: str) -> ObjectRef:
    group, version = text(res, "group", where), text(res, "version", where)
    api = f"{group}/{version}" if group else version
    return ObjectRef(text(res, "kind", where), text(res, "name", where), text(res, "namespace", where), api)


def _owner(meta: Mapping[str, Any], namespace: str, where: str) -> ObjectRef | None:
    """The owning ApplicationSet: an ownerReference of kind ApplicationSet in Argo CD's API group (the
    controller's, when several are), always in the Application's own namespace."""
    owners: list[tuple[bool, ObjectRef]] = []
    for index, ref in enumerate(_items(meta, "ownerReferences", where)):
        at = f"{where}: metadata.ownerReferences[{index}]"
        api, name = text(ref, "apiVersion", at), text(ref, "name", at)
        if (
            text(ref, "kind", at) == "ApplicationSet"
            and api.split("/")[0] == APPLICATION_API.split("/", maxsplit=1)[0]
            and name
        ):
            owners.append((bool(field(ref, "controller", bool, at)), ObjectRef("ApplicationSet", name, namespace, api)))
    if not owners:
        return None
    return next((ref for controller, ref in owners if controller), owners[0][1])


def read_application(obj: ApplicationWire, where: str) -> AppState:
    meta = mapping(obj, "metadata", where)
    spec = mapping(obj, "spec", where)
    status = mapping(obj, "status", where)
    dest = mapping(spec, "destination", where)
    destination = Destination(
        server=text(dest, "server", where).rstrip("/"),
        name=text(dest, "name", where),
        namespace=text(dest, "namespace", where),
    )
    name, namespace = text(meta, "name", where), text(meta, "namespace", where)
    ref = ObjectRef("Application", name, namespace, APPLICATION_API)
    resources = [_resource_ref(r, where) for r in _items(status, "resources", where)]
    op_result = mapping(mapping(status, "operationState", where), "syncResult", where)
    resources += [_resource_ref(r, where) for r in _items(op_result, "resources", where)]
    entries = (
        _history(status, ref, where)
        + _operation(status, ref, where)
        + _health(status, ref, where)
        + _conditions(status, ref, where)
    )
    return AppState(
        name=name,
        namespace=namespace,
        project=text(spec, "project", where),
        destination=destination,
        resources=tuple(dict.fromkeys(r for r in resources if r.kind and r.name)),
        controller_namespace=text(status, "controllerNamespace", where),
        entries=tuple(entries),
        owner=_owner(meta, namespace, where),
    )
