"""What the upgrade gate publishes for one cluster, decided from what its Secret already says.

The Secret's annotations are the gate's memory: a result is written only when it differs from them, so
re-evaluating (every change of an Application, every resync, after a restart or a leader change)
writes nothing and records no Event while nothing changed. A blocked episode keeps the start time it
got when it began (``upgrade-blocked-since``), which is what lets the catalog announce it once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.generators.fleet.events import EventRecorder, EventSpec
from argocd_lifecycle.generators.preflight.report import Report, blocked_summary, headline
from argocd_lifecycle.kube.client import Kube, KubeError
from argocd_lifecycle.model import Annotation, Reason
from argocd_lifecycle.times import format_rfc3339

log = logging.getLogger(__name__)

#: the annotations the gate owns on a cluster Secret
GATE_KEYS = (Annotation.UPGRADE_BLOCKERS, Annotation.UPGRADE_BLOCKED, Annotation.UPGRADE_BLOCKED_SINCE)


@dataclass(frozen=True)
class Publication:
    #: merge patch of the Secret's annotations (None removes a key)
    annotations: Mapping[str, str | None]
    #: (reason, message) of the Event to record, if any
    event: tuple[Reason, str] | None = None


def _count(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def decide(annotations: Mapping[str, str], report: Report | None, now: datetime) -> Publication | None:
    """What to write for a cluster whose preflight gave ``report`` (None: no upgrade-to, so no gate);
    None when the Secret already says it all."""
    have = {key: annotations.get(key) for key in GATE_KEYS}
    event: tuple[Reason, str] | None = None
    if report is None:
        want: dict[str, str | None] = dict.fromkeys(GATE_KEYS)
    else:
        blockers, before = len(report.blockers), _count(have[Annotation.UPGRADE_BLOCKERS])
        if blockers:
            summary = blocked_summary(report)
            kept = have[Annotation.UPGRADE_BLOCKED_SINCE] if before else None
            want = {
                Annotation.UPGRADE_BLOCKERS: str(blockers),
                Annotation.UPGRADE_BLOCKED: summary,
                Annotation.UPGRADE_BLOCKED_SINCE: kept or format_rfc3339(now),
            }
            if not before or have[Annotation.UPGRADE_BLOCKED] != summary:
                event = (Reason.UPGRADE_BLOCKED, f"{headline(report)}: {summary}")
        else:
            want = {Annotation.UPGRADE_BLOCKERS: "0", Annotation.UPGRADE_BLOCKED: None,
                    Annotation.UPGRADE_BLOCKED_SINCE: None}  # fmt: skip
            if before != 0:
                event = (Reason.UPGRADE_CLEAR, headline(report))
    patch = {key: value for key, value in want.items() if have[key] != value}
    if not patch and event is None:
        return None
    return Publication(patch, event)


class Publisher(Protocol):
    async def publish(self, secret: ClusterSecret, publication: Publication, when: datetime) -> bool:
        """False when it should be tried again (the write failed or this replica does not lead)."""
        ...


class LogPublisher:
    """Without Kubernetes (tests, benchmarks): the same facts on stderr."""

    def __init__(self) -> None:
        self.published: list[tuple[str, Publication]] = []

    async def publish(self, secret: ClusterSecret, publication: Publication, when: datetime) -> bool:
        self.published.append((secret.secret_name, publication))
        if publication.event is not None:
            log.info("cluster %s: %s: %s", secret.name, publication.event[0].value, publication.event[1])
        return True


class KubePublisher:
    """Merge-patches the gate's annotations onto the Secret and records the Event, leader only."""

    def __init__(self, kube: Kube, is_leader: Callable[[], bool], *, instance: str = "") -> None:
        self.kube, self.is_leader = kube, is_leader
        self.events = EventRecorder(kube, instance=instance)

    async def publish(self, secret: ClusterSecret, publication: Publication, when: datetime) -> bool:
        if not self.is_leader():
            return False
        try:
            # the Event first: if the patch then fails, the retry repeats the Event (a count bump)
            # instead of losing it behind annotations that already say everything
            if publication.event is not None:
                reason, message = publication.event
                kind = "Warning" if reason is Reason.UPGRADE_BLOCKED else "Normal"
                spec = EventSpec(secret.namespace, secret.secret_name, secret.uid, reason.value, message, kind)
                await asyncio.to_thread(self.events.record, spec, format_rfc3339(when))
            if publication.annotations:
                await asyncio.to_thread(
                    self.kube.annotate_secret, secret.namespace, secret.secret_name, publication.annotations
                )
        except KubeError as exc:
            log.warning("upgrade gate: %s (will retry)", exc.message)
            return False
        return True
