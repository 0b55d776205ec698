"""Who changed which fields of one live object after Argo CD's last sync, from what to what.

A field counts when a manager other than Argo CD's owns it through an entry whose ``time`` is after the
last sync finished, or in its second, as both keep whole seconds (every entry of such a manager when no
sync time is known). The API server records no
``time`` for writes through the ``scale`` subresource: such a field counts when its live value differs
from the one Argo CD applied, and its line says the time was not recorded. Fields written through
the ``status`` subresource, and bookkeeping fields controllers write, are not desired state and never
count. The live value is read from the object; the value Argo CD applied from its
``kubectl.kubernetes.io/last-applied-configuration`` (client-side apply), unless that annotation was
itself rewritten by someone else after the sync.

A Secret is never read: its changes name fields only, no value of the object or of its last-applied
configuration (which holds the Secret's data in clear) is looked at.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from argocd_lifecycle.drift.fields import Field, FieldsError, Path, render, resolve
from argocd_lifecycle.drift.managed import Managed, read_managed
from argocd_lifecycle.redaction import redact
from argocd_lifecycle.times import format_rfc3339

#: the field managers Argo CD writes as (server-side apply and its client-side apply)
ARGOCD_MANAGERS = frozenset({"argocd-controller", "argocd-application-controller"})
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
#: a value longer than this is cut (it reaches Events, messages and logs)
MAX_VALUE = 120
#: changes kept per object; the rest are counted
MAX_CHANGES = 50
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_LAST_APPLIED_PATH: Path = (Field("metadata"), Field("annotations"), Field(LAST_APPLIED))
#: written by controllers on every rollout, not desired state
_BOOKKEEPING: frozenset[Path] = frozenset(
    {(Field("metadata"), Field("annotations"), Field("deployment.kubernetes.io/revision"))}
)


@dataclass(frozen=True)
class ObjectRef:
    """An object as ``status.resources`` names it."""

    group: str
    kind: str
    namespace: str
    name: str
    #: the API version Argo CD compared it at: how it is read, not part of its identity
    version: str = field(default="", compare=False)

    def text(self) -> str:
        return f"{self.kind} {self.namespace}/{self.name}" if self.namespace else f"{self.kind} {self.name}"

    @property
    def is_secret(self) -> bool:
        return self.group == "" and self.kind == "Secret"


@dataclass(frozen=True)
class Change:
    """One field changed by someone other than Argo CD."""

    path: str
    manager: str
    operation: str
    subresource: str
    #: RFC3339, "" when the entry had no time
    time: str
    #: compact JSON, cut at MAX_VALUE; None when not read (a Secret) or not in the object
    live: str | None
    #: what Argo CD applied, from the last-applied configuration; None when not known
    applied: str | None
    #: "value" (applied holds it), "absent" (Argo CD did not apply this field), "unknown" (no usable
    #: last-applied configuration), "hidden" (a Secret: nothing read)
    applied_state: str

    def line(self) -> str:
        """``spec.replicas 3 -> 5 by kubectl-edit, Update, 10:32:05Z``."""
        how = ", ".join(
            part
            for part in (
                self.manager or "(no manager)",
                self.operation + (f" /{self.subresource}" if self.subresource else ""),
                (self.time[11:] if len(self.time) > 11 else self.time) or "time not recorded",
            )
            if part
        )
        if self.applied_state == "hidden":
            return f"{self.path} changed (Secret: value not read) by {how}"
        live = self.live if self.live is not None else "(absent)"
        if self.applied_state == "value":
            return f"{self.path} {self.applied} -> {live} by {how}"
        if self.applied_state == "absent":
            return f"{self.path} (not applied) -> {live} by {how}"
        return f"{self.path} -> {live} by {how}"


@dataclass(frozen=True)
class ObjectDrift:
    """What was found for one OutOfSync object: its changes, or why it could not be attributed."""

    ref: ObjectRef
    changes: tuple[Change, ...] = ()
    #: changes past MAX_CHANGES, counted only
    more: int = 0
    #: "" when attributed, else why not ("not attributed: <reason>" is how it is shown)
    unattributed: str = ""
    #: a short remark (no managedFields, a last-applied configuration not Argo CD's)
    note: str = ""


def value_text(value: Any) -> str:
    """Compact JSON, credentials masked, at most MAX_VALUE characters."""
    text = redact(json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False))
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 3] + "..."


def _counts(entry: Managed, since: datetime | None) -> bool | None:
    """True: the entry counts; False: it does not; None: it has no time (the API server records none
    for writes through the ``scale`` subresource), so only a field whose live value differs from what
    Argo CD applied counts."""
    if entry.manager in ARGOCD_MANAGERS or entry.subresource == "status":
        return False
    if since is None:
        return True
    # managedFields and finishedAt keep whole seconds: a change in the second the sync finished counts
    return None if entry.time is None else entry.time >= since.replace(microsecond=0)


def _differs(obj: Mapping[str, Any], applied: Mapping[str, Any] | None, path: Path) -> bool:
    if applied is None:
        return False
    in_applied, value = resolve(applied, path)
    found, live = resolve(obj, path)
    return in_applied and found and value != live


def _applied(obj: Mapping[str, Any], rewritten: bool) -> Mapping[str, Any] | None:
    if rewritten:
        return None
    annotations = (obj.get("metadata") or {}).get("annotations")
    raw = annotations.get(LAST_APPLIED) if isinstance(annotations, Mapping) else None
    if not isinstance(raw, str):
        return None
    try:
        doc = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def attribute(
    obj: Mapping[str, Any], ref: ObjectRef, since: datetime | None, *, max_changes: int = MAX_CHANGES
) -> ObjectDrift:
    """The changes to ``obj`` after ``since`` by managers other than Argo CD's."""
    try:
        entries = read_managed(obj)
    except FieldsError as exc:
        return ObjectDrift(ref, unattributed=f"managedFields unreadable: {exc.message}")
    if not entries:
        return ObjectDrift(ref, unattributed="the object has no managedFields")
    secret = ref.is_secret
    owned = [
        (entry, path, _counts(entry, since))
        for entry in entries
        for path in entry.paths
        if path not in _BOOKKEEPING and not (path and path[0] == Field("status"))
    ]
    rewritten = any(path == _LAST_APPLIED_PATH and counts for _, path, counts in owned)
    applied_doc = None if secret else _applied(obj, rewritten)
    counted = [
        (entry, path)
        for entry, path, counts in owned
        if counts or (counts is None and not secret and _differs(obj, applied_doc, path))
    ]
    # in time order, those without a time last
    counted.sort(key=lambda item: (item[0].time is None, item[0].time or since or _EPOCH, render(item[1])))
    note = ""
    if rewritten and not secret:
        note = "the last-applied configuration was rewritten after the sync: applied values unknown"
    changes = tuple(_change(entry, path, obj, applied_doc, secret) for entry, path in counted[:max_changes])
    return ObjectDrift(ref, changes, more=max(0, len(counted) - max_changes), note=note)


def _change(
    entry: Managed, path: Path, obj: Mapping[str, Any], applied_doc: Mapping[str, Any] | None, secret: bool
) -> Change:
    live: str | None = None
    applied: str | None = None
    state = "hidden" if secret else "unknown"
    if not secret:
        if path == _LAST_APPLIED_PATH:
            live = "(a last-applied configuration)"
        else:
            found, value = resolve(obj, path)
            live = value_text(value) if found else None
        if applied_doc is not None:
            found, value = resolve(applied_doc, path)
            state = "value" if found else "absent"
            applied = value_text(value) if found else None
    return Change(
        path=render(path),
        manager=entry.manager,
        operation=entry.operation,
        subresource=entry.subresource,
        time=format_rfc3339(entry.time) if entry.time else "",
        live=live,
        applied=applied,
        applied_state=state,
    )
