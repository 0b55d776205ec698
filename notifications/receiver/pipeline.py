"""What happens to an accepted event: de-duplicate, silence, collapse storms, damp flaps, route, enqueue.

Flap counting keys on the event's identity (cluster, app, trigger), not on its fingerprint: a
fingerprint repeats only as a duplicate, while a flapping alert fires again and again with a new
revision or phase-since each time.

A cluster's phase comes from the signed lifecycle source only: a lifecycle event records it, under the
cluster's name and its server (an Application names its destination by either, and the catalog's body
says which), and ends a storm when it is not Unreachable; any other event is given the recorded phase
(its routes and silences match on that, its message shows it), whatever its body claims. A storm
collapses the Argo CD alerts of a cluster the lifecycle source calls Unreachable; neither an Argo CD
body (an Application annotation) nor an external event can open, extend or end one. A storm is kept
per receiver (``storm_key``): each destination's message counts and names (``namespace/app``) the
alerts routed to it only, so a team's route is told of its own Applications, not another team's.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from argocd_lifecycle.model import Phase
from argocd_lifecycle.notifications.receiver import notification
from argocd_lifecycle.notifications.receiver.config import ReceiverConfig
from argocd_lifecycle.notifications.receiver.events import ARGOCD, LIFECYCLE, Event
from argocd_lifecycle.notifications.receiver.metrics import Metrics
from argocd_lifecycle.notifications.receiver.routing import route
from argocd_lifecycle.notifications.receiver.silences import first_match
from argocd_lifecycle.notifications.receiver.state import GroupUpdate, Ingest, NewItem, StateStore


class Outcome(StrEnum):
    QUEUED = "queued"
    DUPLICATE = "duplicate"
    SILENCED = "silenced"
    COLLAPSED = "collapsed"
    FLAPPING = "flapping"
    UNROUTED = "unrouted"


@dataclass(frozen=True)
class Result:
    outcome: Outcome
    fingerprint: str
    receivers: tuple[str, ...] = ()
    silence: str = ""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "status": str(self.outcome),
            "fingerprint": self.fingerprint,
            "receivers": list(self.receivers),
        }
        if self.silence:
            out["silence"] = self.silence
        return out


def _new_id() -> str:
    """Idempotency key: time first, so the outbox's key index grows at its end (one page per commit,
    where random keys touch one page per message), then 64 random bits."""
    return f"{time.time_ns():016x}{secrets.token_hex(8)}"


class Pipeline:
    def __init__(
        self,
        config: ReceiverConfig,
        store: StateStore,
        metrics: Metrics,
        wake: Callable[[], None] = lambda: None,
        new_id: Callable[[], str] = _new_id,
    ) -> None:
        self.config, self.store, self.metrics, self.wake, self.new_id = config, store, metrics, wake, new_id

    async def ingest(self, event: Event) -> Result:
        store, now, fp = self.store, event.received_at, event.fingerprint
        self.metrics.received_from(event.source).inc()
        if await store.seen(fp, now):
            self.metrics.deduplicated.inc()
            return Result(Outcome.DUPLICATE, fp)
        if event.source == LIFECYCLE and event.cluster:
            for name in dict.fromkeys(n for n in (event.cluster, event.server) if n):
                await store.set_cluster_phase(name, event.cluster_phase, now)
                if event.cluster_phase != Phase.UNREACHABLE:
                    for sink in self.config.sinks:
                        await store.storm_clear(storm_key(sink.name, name))
        elif event.cluster:
            event = dataclasses.replace(event, cluster_phase=await store.cluster_phase(event.cluster))
        labels = event.labels()
        silence = first_match(await store.silences(now), labels, now)
        if silence is not None:
            # Not marked as seen: once the silence ends, the same alert is told if it fires again.
            self.metrics.silenced.inc()
            return Result(Outcome.SILENCED, fp, silence=silence.id)
        receivers = route(self.config.routes, labels)
        if event.source == ARGOCD and event.cluster and event.cluster_phase == Phase.UNREACHABLE:
            return await self._collapse(event, receivers)
        count = await store.flap_count(event.identity, now, self.config.flap_window) + 1
        outcome = Outcome.QUEUED if receivers else Outcome.UNROUTED
        payload = notification.alert(event)
        if count > self.config.flap_threshold:
            until = now + self.config.flap_window
            if not await store.flap_begin(event.identity, now, until):
                self.metrics.flapping.inc()
                receivers = []
            payload = notification.flapping(event, count, self.config.flap_window)
            outcome = Outcome.FLAPPING
        items = [NewItem(self.new_id(), name, payload.to_json(), now) for name in receivers]
        change = Ingest(fp, self.config.dedupe_window, items, flap_identity=event.identity)
        if not await store.record(change, now):
            self.metrics.deduplicated.inc()
            return Result(Outcome.DUPLICATE, fp)
        if items:
            self.wake()
        return Result(outcome, fp, tuple(receivers))

    async def _collapse(self, event: Event, receivers: list[str]) -> Result:
        """Each receiver's storm of the cluster counts and names only the alerts routed to it: a team's
        route gets "Cluster X is Unreachable" with its own Applications, never another team's names;
        the storm opens and ends for the cluster (the lifecycle source) as one."""
        cfg, now = self.config, event.received_at
        app = f"{event.namespace}/{event.app}" if event.namespace else event.app
        groups = []
        for name in receivers:
            started, alerts, apps, new_app = await self.store.storm_add(storm_key(name, event.cluster), app, now)
            # another alert of an app the storm already names (a second trigger, or the Application
            # deleted and created again while the cluster is down) adds nothing to tell: no update
            if new_app:
                payload = notification.collapsed(event, alerts, apps, cfg.storm_max_names).to_json()
                key = f"storm:{event.cluster}:{started}"
                groups.append(
                    GroupUpdate(name, key, payload, self.new_id(), cfg.storm_group_wait, cfg.storm_group_interval)
                )
        if not await self.store.record(Ingest(event.fingerprint, cfg.dedupe_window, groups=groups), now):
            self.metrics.deduplicated.inc()
            return Result(Outcome.DUPLICATE, event.fingerprint)
        self.metrics.collapsed.inc()
        if groups:
            self.wake()
        return Result(Outcome.COLLAPSED, event.fingerprint, tuple(receivers))


def storm_key(receiver: str, cluster: str) -> str:
    """The state store's storm of ``cluster`` as ``receiver`` is told it (the receiver's name first: it
    is the operator's, the cluster's may be anyone's text)."""
    return f"{receiver}\x1f{cluster}"
