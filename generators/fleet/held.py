"""Making a held answer visible: a log line, an Event on the ApplicationSet, one receiver message.

The guard runs in every replica, so each may see the same held episode (Argo CD's requests are
spread over the replicas), and it reports every refusal. The episode is claimed on the ApplicationSet
itself: the replica that sets ``argocd-lifecycle.io/held-since`` (a merge patch carrying the
resourceVersion it read, so only one can win) records the ``MassDropHeld`` Event and posts the
message; the others find it set and stay quiet. The replica that answers the ApplicationSet again
removes it and records ``MassDropReleased`` (each replica also checks once, at its first answer for an
ApplicationSet, so a mark left by a replica that died is removed). A look deferred from a refusal
before that release is dropped, and a mark set while the release came is taken back: either would
tell the over hold again and leave a mark that silences the next one. A mark older than ten minutes
is claimed again: a hold that lasts is told again every ten minutes. The message goes to the
receiver's ``/v1/events/external`` (signed like the lifecycle events), its ``revision`` being the
episode, so a retry is de-duplicated there.

Without Kubernetes (``--clusters-from``) there is one process, so its own episode is the episode.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from typing import Any

from argocd_lifecycle.generators.fleet.events import EventRecorder, EventSpec
from argocd_lifecycle.generators.fleet.poster import Notifier
from argocd_lifecycle.generators.fleet.refresher import AppSetRefresher, patch_appset
from argocd_lifecycle.generators.fleet.view import Hold, split_key
from argocd_lifecycle.kube.client import Kube, KubeConflict, KubeError
from argocd_lifecycle.model import PREFIX
from argocd_lifecycle.times import format_rfc3339, parse_rfc3339

log = logging.getLogger(__name__)

HELD_SINCE = PREFIX + "held-since"
HELD_REASON = "MassDropHeld"
RELEASED_REASON = "MassDropReleased"
TRIGGER = "MassDropHeld"
#: a held-since mark older than this is claimed again (a reminder, and the end of a dead replica's mark)
REMIND_SECONDS = 600.0
#: refusals of one ApplicationSet closer together than this are one look at its mark
RECHECK_SECONDS = 2.0
_APPSETS = ("argoproj.io", "v1alpha1")


def external_event(hold: Hold, home: str, episode: str) -> dict[str, Any]:
    """The receiver's external event body for a held answer (all strings; labels for routing): the
    namespace is the ApplicationSet's own and the project its template's, so a tenant's hold routes (and
    is silenced) like its other messages; no project is sent when it is not known."""
    namespace, name = split_key(hold.appset, home)
    return {
        "trigger": TRIGGER,
        "severity": "critical",
        "namespace": namespace,
        **({"project": hold.project} if hold.project else {}),
        "message": hold.message,
        "revision": hashlib.sha256(f"{namespace}/{name}/{episode}".encode()).hexdigest()[:16],
        "labels": {"applicationSet": name, "clusters": str(len(hold.lost))},
    }


class HeldReporter:
    """Implements ``HoldReporter``; every method returns at once and works on the event loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        namespace: str,
        *,
        kube: Kube | None = None,
        uid_of: Callable[[str], str] = lambda appset: "",
        notifier: Notifier | None = None,
        refresher: AppSetRefresher | None = None,
        instance: str = "",
    ) -> None:
        self.loop, self.namespace, self.kube, self.uid_of = loop, namespace, kube, uid_of
        self.notifier, self.refresher = notifier, refresher
        self.events = EventRecorder(kube, instance=instance) if kube is not None else None
        self._tasks: set[concurrent.futures.Future[None]] = set()
        self._looked: dict[str, float] = {}
        self._deferred: set[str] = set()
        #: releases per ApplicationSet: a look deferred from before a release belongs to a hold that is over
        self._releases: dict[str, int] = {}
        #: without Kubernetes this process is the only one: its own marks
        self._local_mark: dict[str, str] = {}
        #: episodes this replica claimed (for tests and logs)
        self.claimed = 0

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.run_coroutine_threadsafe(coro, self.loop)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- HoldReporter -------------------------------------------------------------------------------
    def held(self, hold: Hold) -> None:
        now = time.monotonic()
        wait = self._looked.get(hold.appset, -RECHECK_SECONDS) + RECHECK_SECONDS - now
        episode = self._releases.get(hold.appset, 0)
        if wait > 0:  # a burst of refusals: one look at the mark, at the end of the window
            if hold.appset not in self._deferred:
                self._deferred.add(hold.appset)
                self.loop.call_soon_threadsafe(self.loop.call_later, wait, self._look, hold, episode)
            return
        self._look(hold, episode)

    def _look(self, hold: Hold, episode: int) -> None:
        self._deferred.discard(hold.appset)
        if self._releases.get(hold.appset, 0) != episode:
            return  # released since: telling this hold now would mark an answered ApplicationSet held
        self._looked[hold.appset] = time.monotonic()
        if len(self._looked) > 4096:
            self._looked.clear()
        self._spawn(self._held(hold, episode))

    def released(self, appset: str) -> None:
        if len(self._releases) > 4096:
            self._releases.clear()
        self._releases[appset] = self._releases.get(appset, 0) + 1
        self._deferred.discard(appset)
        self._looked.pop(appset, None)  # the next refusal is a new episode: look at once
        self._spawn(self._released(appset))

    def recheck(self, appset: str, after: float) -> None:
        if self.refresher is None:
            return
        refresher = self.refresher

        def again() -> None:
            self._spawn(self._call(refresher.refresh_one, appset))

        self.loop.call_soon_threadsafe(self.loop.call_later, after, again)

    # -- work -----------------------------------------------------------------------------------------
    async def _call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return await asyncio.to_thread(fn, *args)
        except KubeError as exc:
            log.warning("%s", exc.message)
            return None

    async def _held(self, hold: Hold, episode: int) -> None:
        stamp = format_rfc3339(time.time())
        if self.kube is not None:
            if not await self._call(self._mark, hold.appset, stamp):
                return  # this episode was told already (by this replica or another)
            if self._releases.get(hold.appset, 0) != episode:  # released while marking: the mark goes
                await self._call(self._unmark, hold.appset)
                return
            await self._event(hold.appset, HELD_REASON, hold.message, "Warning", stamp)
        elif self._local_mark.get(hold.appset):
            return
        self._local_mark[hold.appset] = stamp
        log.warning("%s", hold.message)
        self.claimed += 1
        if self.notifier is not None and self.notifier.external_url:
            body = external_event(hold, self.namespace, f"{stamp}/{secrets.token_hex(8)}")
            self.notifier.post_to(self.notifier.external_url, body, f"{TRIGGER} for {hold.appset}")

    async def _released(self, appset: str) -> None:
        if self.kube is None:
            self._local_mark.pop(appset, None)
            return
        stamp = format_rfc3339(time.time())
        if await self._call(self._unmark, appset):
            message = f"ApplicationSet {appset!r} is answered again: the mass-drop guard released it"
            await self._event(appset, RELEASED_REASON, message, "Normal", stamp)

    async def _event(self, appset: str, reason: str, message: str, kind: str, stamp: str) -> None:
        assert self.events is not None
        namespace, name = split_key(appset, self.namespace)
        spec = EventSpec(
            namespace, name, self.uid_of(appset), reason, message, kind, "ApplicationSet", "/".join(_APPSETS)
        )
        await self._call(self.events.record, spec, stamp)

    # -- the claim on the ApplicationSet (blocking) ---------------------------------------------------
    def _read(self, appset: str) -> dict[str, Any] | None:
        assert self.kube is not None
        namespace, name = split_key(appset, self.namespace)
        listing = self.kube.call(
            f"list ApplicationSets in {namespace}",
            self.kube.custom.list_namespaced_custom_object,
            *_APPSETS,
            namespace,
            "applicationsets",
        )
        return next((a for a in listing.get("items") or [] if (a.get("metadata") or {}).get("name") == name), None)

    def _patch(self, appset: str, metadata: dict[str, Any]) -> None:
        assert self.kube is not None
        namespace, name = split_key(appset, self.namespace)
        patch_appset(self.kube, namespace, name, metadata)

    def _mark(self, appset: str, stamp: str) -> bool:
        """Set held-since unless it is set; True when this replica set it (or the object is unknown)."""
        for _ in range(3):
            current = self._read(appset)
            if current is None:
                return True
            meta = current.get("metadata") or {}
            if _fresh((meta.get("annotations") or {}).get(HELD_SINCE) or ""):
                return False
            version = meta.get("resourceVersion")
            try:  # the resourceVersion makes this a compare-and-set: one replica wins
                self._patch(appset, {"resourceVersion": version, "annotations": {HELD_SINCE: stamp}})
            except KubeConflict:
                continue
            return True
        return False

    def _unmark(self, appset: str) -> bool:
        """Remove held-since; True when this replica removed it."""
        for _ in range(3):
            current = self._read(appset)
            meta = (current or {}).get("metadata") or {}
            if not (meta.get("annotations") or {}).get(HELD_SINCE):
                return False
            try:
                self._patch(appset, {"resourceVersion": meta.get("resourceVersion"), "annotations": {HELD_SINCE: None}})
            except KubeConflict:
                continue
            return True
        return False


def _fresh(stamp: str) -> bool:
    try:
        return time.time() - parse_rfc3339(stamp) < REMIND_SECONDS
    except ValueError:
        return False  # missing or hand-edited: claim it
