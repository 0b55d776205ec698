"""What a drift episode publishes through the API: the Application's drift annotations (merge patch),
Events ``DriftDetected``/``DriftResolved`` on it, one signed message to the receiver, the metrics."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter

from argocd_lifecycle.drift import text
from argocd_lifecycle.drift.report import AppDrift, DriftReport
from argocd_lifecycle.generators.drift.watch import Episode
from argocd_lifecycle.generators.fleet.events import EventRecorder, EventSpec
from argocd_lifecycle.generators.fleet.poster import Notifier
from argocd_lifecycle.kube.client import MERGE_PATCH, Kube, KubeError, KubeNotFound
from argocd_lifecycle.model import Annotation, DriftReason
from argocd_lifecycle.times import format_rfc3339

log = logging.getLogger(__name__)

DETECTED = DriftReason.DETECTED.value
RESOLVED = DriftReason.RESOLVED.value
#: the attribution annotation: the catalog message quotes it
ATTRIBUTION_CHARS = 1000
KEYS = (Annotation.DRIFT_SINCE, Annotation.DRIFT_DEADLINE, Annotation.DRIFT_ATTRIBUTION)


class DriftMetrics:
    def __init__(self, registry: CollectorRegistry = REGISTRY) -> None:
        self.episodes = Counter(
            "argocd_lifecycle_drift_episodes",
            "Drift episodes of Applications (live state changed under the synced revision), by whether "
            "any field was attributed",
            ["attributed"],
            registry=registry,
        )
        self.resolved = Counter(
            "argocd_lifecycle_drift_resolved", "Drift episodes that ended (the Application Synced again)",
            registry=registry,
        )  # fmt: skip


def message(report: DriftReport, episode: Episode, note: str) -> str:
    window = f" Break-glass window until {format_rfc3339(episode.deadline)} ({episode.window_source})."
    return text.summary(report, 900) + (f" ({note})" if note else "") + window


def receiver_body(app: AppDrift, report: DriftReport, episode: Episode, note: str) -> dict[str, Any]:
    """The receiver's external event for an episode's start (all strings; ``revision`` is the episode,
    so a retry is de-duplicated there)."""
    since = format_rfc3339(episode.since)
    return {
        "trigger": DETECTED,
        "severity": "warning",
        "cluster": app.dest_name or app.dest_server,
        "app": app.name,
        "namespace": app.namespace,
        "project": app.project,
        "revision": hashlib.sha256(f"{app.namespace}/{app.name}/{since}".encode()).hexdigest()[:16],
        "message": message(report, episode, note),
        "labels": {"drift": report.app.state, "attributed": str(report.attributed).lower()},
    }


class KubeDriftOutputs:
    """Implements ``DriftOutputs`` with blocking API calls run in a thread."""

    def __init__(
        self,
        kube: Kube,
        *,
        notifier: Notifier | None = None,
        metrics: DriftMetrics | None = None,
        instance: str = "",
        is_leader: Callable[[], bool] = lambda: True,
    ) -> None:
        self.kube, self.notifier, self.metrics, self.is_leader = kube, notifier, metrics, is_leader
        self.recorder = EventRecorder(kube, instance=instance)

    def _patch(self, app: AppDrift, annotations: dict[str, str | None]) -> None:
        self.kube.call(
            f"annotate Application {app.namespace}/{app.name}",
            self.kube.custom.patch_namespaced_custom_object,
            "argoproj.io", "v1alpha1", app.namespace, "applications", app.name,
            {"metadata": {"annotations": annotations}},
            _content_type=MERGE_PATCH,
        )  # fmt: skip

    def _event(self, app: AppDrift, reason: str, body: str, kind: str, stamp: str) -> None:
        spec = EventSpec(
            app.namespace, app.name, app.uid, reason, body, kind,
            object_kind="Application", object_api_version="argoproj.io/v1alpha1",
        )  # fmt: skip
        try:
            self.recorder.record(spec, stamp)
        except KubeError as exc:  # the annotations are the record; an Event is best effort
            log.warning("drift: %s", exc.message)

    async def detected(self, app: AppDrift, report: DriftReport, episode: Episode, note: str) -> bool:
        if not self.is_leader():
            return False
        since = format_rfc3339(episode.since)
        annotations: dict[str, str | None] = {
            Annotation.DRIFT_SINCE: since,
            Annotation.DRIFT_DEADLINE: format_rfc3339(episode.deadline),
            Annotation.DRIFT_ATTRIBUTION: text.attribution(report, ATTRIBUTION_CHARS) or text.listed(app.out_of_sync),
        }
        try:
            await asyncio.to_thread(self._patch, app, annotations)
        except KubeNotFound:
            return True  # the Application is gone: nothing to tell
        except KubeError as exc:
            log.warning("drift: %s", exc.message)
            return False
        body = message(report, episode, note)
        await asyncio.to_thread(self._event, app, DETECTED, body, "Warning", since)
        if self.notifier is not None and self.notifier.external_url:
            payload = receiver_body(app, report, episode, note)
            self.notifier.post_to(self.notifier.external_url, payload, f"{DETECTED} for {app.namespace}/{app.name}")
        if self.metrics is not None:
            self.metrics.episodes.labels(str(report.attributed).lower()).inc()
        log.info("drift: %s", body)
        return True

    async def resolved(self, app: AppDrift) -> bool:
        if not self.is_leader():
            return False
        try:
            await asyncio.to_thread(self._patch, app, dict.fromkeys(KEYS))
        except KubeNotFound:
            return True
        except KubeError as exc:
            log.warning("drift: %s", exc.message)
            return False
        since = app.annotations.get(Annotation.DRIFT_SINCE, "")
        await asyncio.to_thread(
            self._event, app, RESOLVED, f"Synced again; the drift episode since {since} ended", "Normal",
            format_rfc3339(time.time()),
        )  # fmt: skip
        if self.metrics is not None:
            self.metrics.resolved.inc()
        return True
