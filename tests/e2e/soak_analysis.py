"""Messages per outage episode, from what reached the soak's sink.

An outage episode is what the product saw: from a cluster's ``ClusterUnreachable`` transition (the
lifecycle message at ``/lifecycle``) until its next transition of another kind (a recovery, a removal).
A ``ClusterUnreachable`` again before any other transition of that cluster (a replica that repeated it
after a restart or a failover) is the same episode, counted as a repeat: splitting there would hide a
repeated alert behind a second episode. The messages a person gets
about it are the receiver's deliveries at ``/alerts`` naming the cluster (Argo CD's catalog names it
by the Application's destination, the server URL): the down message (``on-cluster-unreachable``, as
one collapsed storm message or an alert) and the recovery message (``on-cluster-recovered``).

An episode starts at the transition's own time (the lifecycle message's ``since``, whole seconds), not
at the lifecycle message's arrival: that message may reach the sink after the alert it caused (both
go through the receiver, retried with backoff), and an alert taken for the previous episode would
count twice there and not at all in its own.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from argocd_lifecycle.times import parse_rfc3339
from tests.harness.sink import Message

#: lifecycle messages that are no phase change (they may come while a cluster is Unreachable)
NOT_TRANSITIONS = {"ClusterScaled", "ClusterCredentialsRotated", "ClusterCertificateExpiring"}
EARLY = 1.0  # ``since`` drops the fraction: an alert of the same second belongs to the episode


@dataclass
class Episodes:
    #: (cluster, start) -> messages of each kind
    down: dict[tuple[str, float], int] = field(default_factory=dict)
    recovered: dict[tuple[str, float], int] = field(default_factory=dict)
    unattributed: int = 0
    #: ``ClusterUnreachable`` lifecycle messages inside an episode already open
    repeated: int = 0
    #: what came more than once in an episode: cluster, episode start and the messages' titles
    extra: list[str] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.down)

    @property
    def max_down(self) -> int:
        return max(self.down.values(), default=0)

    @property
    def max_recovered(self) -> int:
        return max(self.recovered.values(), default=0)

    def histogram(self, kind: str) -> str:
        counts = Counter((self.down if kind == "down" else self.recovered).values())
        return "{" + ", ".join(f"{n}: {counts[n]}" for n in sorted(counts)) + "}"


def _event(message: Message) -> dict[str, Any]:
    body = message.body if isinstance(message.body, dict) else {}
    event = body.get("event")
    return event if isinstance(event, dict) else {}


def _kind(message: Message) -> str:
    body = message.body if isinstance(message.body, dict) else {}
    if body.get("kind") == "collapsed":
        return "down"
    trigger = _event(message).get("trigger")
    return {"on-cluster-unreachable": "down", "on-cluster-recovered": "recovered"}.get(str(trigger), "")


def _start(m: Message, event: dict[str, Any], wall: float) -> float:
    try:
        return parse_rfc3339(str(event.get("since") or ""))
    except ValueError:  # no timestamp: the arrival
        return m.received + wall


def outage_episodes(messages: list[Message], by_server: dict[str, str], wall: float | None = None) -> Episodes:
    """``wall``: Unix time minus ``time.monotonic()`` (the sink stamps arrivals with the latter)."""
    wall = time.time() - time.monotonic() if wall is None else wall
    starts: dict[str, list[float]] = {}
    open_: set[str] = set()  # clusters whose last transition was ClusterUnreachable
    out = Episodes()
    for m in sorted((m for m in messages if m.path == "/lifecycle"), key=lambda m: m.received):
        event = _event(m)
        cluster = str(event.get("cluster"))
        if event.get("reason") in NOT_TRANSITIONS:
            continue
        if event.get("reason") != "ClusterUnreachable":
            open_.discard(cluster)
        elif cluster in open_:
            out.repeated += 1
        else:
            open_.add(cluster)
            starts.setdefault(cluster, []).append(_start(m, event, wall))
    for cluster, times in starts.items():
        for t in sorted(times):
            out.down[(cluster, t)] = 0
            out.recovered[(cluster, t)] = 0
    titles: dict[tuple[str, float, str], list[str]] = {}
    for m in messages:
        kind = _kind(m)
        if m.path != "/alerts" or not kind:
            continue
        body = m.body if isinstance(m.body, dict) else {}
        cluster = by_server.get(str(body.get("cluster") or ""), str(body.get("cluster") or ""))
        at = m.received + wall
        before = [t for t in starts.get(cluster, []) if t - EARLY <= at]
        if not before:
            out.unattributed += 1
            continue
        episodes = out.down if kind == "down" else out.recovered
        episodes[(cluster, max(before))] += 1
        titles.setdefault((cluster, max(before), kind), []).append(str(body.get("title") or ""))
    for (cluster, start, kind), shown in sorted(titles.items()):
        if len(shown) > 1:
            out.extra.append(f"{cluster} {kind} episode from {time.strftime('%H:%M:%S', time.gmtime(start))}: "
                             + " | ".join(shown))  # fmt: skip
    return out
