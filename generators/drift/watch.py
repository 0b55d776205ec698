"""The generator's drift watch: when an Application's objects drift while its revision stays the synced
one, read them from the destination cluster and publish who changed what, once per drift episode.

Input: the generator's Applications list/watch (``consumer()``, tee'd in beside the mass-drop guard's
index and the upgrade gate: no second watch). An episode starts when an Application turns to live drift
(``report.LIVE``) and ends when nothing is OutOfSync any more; a new revision waiting for its sync is
not drift and starts none, but does not end one either (a commit not yet synced is not reconciled).

The episode is kept on the Application itself (``argocd-lifecycle.io/drift-since``, with the end of its
break-glass window and the attribution), so a restart or a new leader does not report it again, and
the catalog's ``on-drift-unreconciled`` reads it. On its start the leader reads the OutOfSync objects
(bounded, ``reader.py``) and publishes: the annotations, Event ``DriftDetected`` on the Application, one
signed message to the receiver, the metrics. A cluster that cannot be read gives "not attributed:
<reason>". Objects read whole that nobody but Argo CD changed after the sync mean the desired state
moved without a new revision (parameters, plugin env, the Application's spec), or Argo CD's status
was not yet up to date (right after a sync): no episode, and the objects are read again at Argo CD's next
comparison (``status.reconciledAt``), not before. With self-heal on, Argo CD may heal before the objects are read; then
the episode is published all the same, saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from argocd_lifecycle.drift.attribute import ObjectRef
from argocd_lifecycle.drift.report import (
    LIVE,
    MAX_OBJECTS,
    NONE,
    AppDrift,
    DriftInputError,
    DriftReport,
    read_app,
    to_read,
)
from argocd_lifecycle.drift.report import report as build_report
from argocd_lifecycle.generators.drift.reader import Read
from argocd_lifecycle.generators.drift.window import Windows
from argocd_lifecycle.generators.fleet.list_watch import Consumer
from argocd_lifecycle.model import Annotation
from argocd_lifecycle.times import parse_rfc3339_datetime

log = logging.getLogger(__name__)

#: read the objects of one Application (its destination cluster, bounded); reasons for those unread
ReadObjects = Callable[[AppDrift, Sequence[ObjectRef]], Awaitable[Mapping[ObjectRef, Read]]]
SELF_HEAL_NOTE = "self-heal is on: Argo CD may have healed the objects before they were read"


@dataclass(frozen=True)
class Episode:
    """A drift episode as published: when it began and when its break-glass window ends."""

    since: datetime
    deadline: datetime
    window_source: str


class DriftOutputs(Protocol):
    async def detected(self, app: AppDrift, report: DriftReport, episode: Episode, note: str) -> bool:
        """Publish an episode's start; False when it must be tried again."""

    async def resolved(self, app: AppDrift) -> bool:
        """Publish its end (the annotations removed); False when it must be tried again."""


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def _published(app: AppDrift) -> datetime | None:
    text = app.annotations.get(Annotation.DRIFT_SINCE, "")
    try:
        return parse_rfc3339_datetime(text) if text else None
    except ValueError:
        return None


class DriftWatch:
    """Touched only on the event loop's thread (the list/watch hands results over to it)."""

    def __init__(
        self,
        read_objects: ReadObjects,
        outputs: DriftOutputs,
        windows: Windows | None = None,
        *,
        is_leader: Callable[[], bool] = lambda: True,
        max_objects: int = MAX_OBJECTS,
        settle: float = 0.5,
        resync: float = 30.0,
        clock: Callable[[], datetime] = _now,
        on_detected: Callable[[DriftReport], None] = lambda r: None,
    ) -> None:
        self.read_objects, self.outputs = read_objects, outputs
        self.windows = windows or Windows()
        self.is_leader, self.max_objects = is_leader, max_objects
        self.settle, self.resync, self.clock = settle, resync, clock
        self.on_detected = on_detected
        self.apps: dict[str, AppDrift] = {}
        self.listed = False
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        #: the last report per Application, for tests and the CLI's comparison
        self.reports: dict[str, DriftReport] = {}
        #: Applications found OutOfSync with nothing attributed, and what they were found so with
        self._quiet: dict[str, tuple[object, ...]] = {}

    # -- inputs --------------------------------------------------------------------------------------
    def consumer(self) -> Consumer:
        return Consumer(self._listed, self._upserted, self._deleted, lambda: None)

    @staticmethod
    def _key(obj: Mapping[str, Any]) -> str:
        meta = obj.get("metadata") or {}
        return f"{meta.get('namespace', '')}/{meta.get('name', '')}" if isinstance(meta, Mapping) else "/"

    def _read(self, obj: Mapping[str, Any]) -> AppDrift | None:
        try:
            return read_app(obj)
        except DriftInputError:
            return None

    def _listed(self, items: list[dict[str, Any]]) -> None:
        self.apps = {}
        for obj in items:
            app = self._read(obj)
            if app is not None:
                self.apps[self._key(obj)] = app
        self.listed = True
        self._mark(list(self.apps))

    def _upserted(self, obj: dict[str, Any]) -> None:
        app = self._read(obj)
        if app is None:
            return
        key = self._key(obj)
        before = self.apps.get(key)
        self.apps[key] = app
        if before is None or self._pending(before) != self._pending(app):
            self._mark([key])
        elif key in self._quiet and self._quiet[key] != self._signature(app):
            self._mark([key])  # Argo CD compared again: a change may have come since the last look

    def _deleted(self, obj: dict[str, Any]) -> None:
        self.apps.pop(self._key(obj), None)
        self._quiet.pop(self._key(obj), None)

    @staticmethod
    def _signature(app: AppDrift) -> tuple[object, ...]:
        return (app.synced_revision, app.synced_at, app.out_of_sync, app.reconciled_at)

    def _pending(self, app: AppDrift) -> tuple[str, bool]:
        return app.state, _published(app) is not None

    def _mark(self, keys: list[str]) -> None:
        if keys:
            self._dirty.update(keys)
            self._wake.set()

    # -- decisions -----------------------------------------------------------------------------------
    async def check(self, key: str) -> bool:
        """Start or end one Application's episode; False when it must be tried again."""
        app = self.apps.get(key)
        if app is None:
            return True
        published = _published(app)
        if app.state == NONE:
            if published is None:
                return True
            log.info("drift watch: %s is Synced again: the drift episode since %s ends", key, published.isoformat())
            return await self.outputs.resolved(app)
        if app.state != LIVE or published is not None:
            return True  # a revision to sync starts nothing; a published episode is told once
        if self._quiet.get(key) == self._signature(app):
            return True  # looked at already: nothing but Argo CD changed these objects
        now = self.clock()
        seconds, source = self.windows.of(app)
        episode = Episode(now, now + timedelta(seconds=seconds), source)
        refs = to_read(app, self.max_objects)
        reads = await self.read_objects(app, refs) if refs else {}
        report = build_report(app, reads, self.max_objects)
        self.reports[key] = report
        unread = any(o.unattributed for o in report.objects)
        if not report.attributed and not unread and not app.self_heal:
            # every object read, nobody but Argo CD changed it: the desired state moved without a new
            # revision (parameters, plugin env, the Application's spec), not a manual change
            self._quiet[key] = self._signature(app)
            log.info("drift watch: %s is OutOfSync, no field changed by anyone but Argo CD: no drift episode", key)
            return True
        note = SELF_HEAL_NOTE if app.self_heal and not report.attributed else ""
        done = await self.outputs.detected(app, report, episode, note)
        if done:
            self.on_detected(report)
        return done

    async def step(self) -> None:
        if not self.listed or not self.is_leader():
            return
        keys, self._dirty = self._dirty, set()
        for key in sorted(keys):
            try:
                done = await self.check(key)
            except Exception:  # a bug must not stop the watch for every Application: log it, retry later
                log.exception("drift watch: Application %s", key)
                done = False
            if not done:
                self._dirty.add(key)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        due = loop.time() + self.resync
        while True:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(due):
                    await self._wake.wait()
            self._wake.clear()
            if loop.time() >= due:
                # leadership may have moved, a write may have failed
                self._mark([k for k, a in self.apps.items() if a.state == LIVE or _published(a) is not None])
                due = loop.time() + self.resync
            await asyncio.sleep(self.settle)
            await self.step()
