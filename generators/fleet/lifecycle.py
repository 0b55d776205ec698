"""The cluster lifecycle state machine, as pure functions (docs/architecture.md has the phase table).

``step(previous, observation, settings, now) -> Step`` decides the new state and the events; it does
no I/O and reads no clock, so every transition is table-tested. The runtime feeds it one observation
per probe (and one per Secret change, without a probe) and acts on the result: annotations are written
only when ``Step.write`` is true, Events and lifecycle posts for each ``Step.events`` entry.

Rules, in priority order: the decommission annotation always wins; a cluster that never passed the
readiness gate stays Pending (with the reason in its message) until ``ready_after`` good probes in a
row; after that, ``unreachable_after`` failures in a row make it Unreachable (transport, TLS, 401/403)
or Degraded (reachable but unhealthy), and ``ready_after`` good probes in a row bring it back.
Upgrading tolerates unhealthy probes, since nodes roll during an upgrade, but not unreachability.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from argocd_lifecycle.generators.fleet.probe_result import ProbeResult
from argocd_lifecycle.generators.fleet.upgrade import UpgradeView, upgrade_view
from argocd_lifecycle.model import PREFIX, Annotation, Phase, Reason
from argocd_lifecycle.times import format_rfc3339, parse_rfc3339

#: written beside the phase once the cluster passed the readiness gate, so that a restart never sends
#: an admitted cluster back behind it (a Pending phase after a cancelled decommission says nothing)
ADMITTED = PREFIX + "admitted"


@dataclass(frozen=True)
class LifecycleSettings:
    ready_after: int = 3
    unreachable_after: int = 3
    #: a reachable cluster with fewer Ready nodes than this fraction is unhealthy
    min_nodes_ready: float = 0.9
    certificate_warning: timedelta = timedelta(days=14)


class Outcome(StrEnum):
    GOOD = "good"
    UNHEALTHY = "unhealthy"
    UNREACHABLE = "unreachable"
    UNSUPPORTED = "unsupported"


@dataclass(frozen=True)
class Observation:
    """Facts for one step: the Secret as it is now, and a probe result when the step follows a probe."""

    annotations: Mapping[str, str]
    credentials: str = ""
    certificate_expires_at: datetime | None = None
    probe: ProbeResult | None = None


@dataclass(frozen=True)
class Tracked:
    """The lifecycle state of one cluster between steps."""

    phase: Phase
    since: datetime
    ready: bool = False
    message: str = ""
    git_version: str = ""
    nodes_known: bool = False
    nodes: int = 0
    nodes_ready: int = 0
    #: why the nodes are unknown although the cluster answered (a bound, or 403 on the node list)
    nodes_unknown: str = ""
    upgrade_to: str = ""
    #: consecutive good probes / non-good probes / unreachable probes / good probes with the upgrade done
    good: int = 0
    failing: int = 0
    unreachable: int = 0
    settled: int = 0
    credentials: str = ""
    certificate_expires_at: datetime | None = None
    certificate_warned: bool = False


@dataclass(frozen=True)
class LifecycleEvent:
    reason: Reason
    message: str
    previous_phase: Phase
    phase: Phase

    @property
    def warning(self) -> bool:
        return self.reason in _WARNINGS


_WARNINGS = {Reason.DEGRADED, Reason.UNREACHABLE, Reason.CERTIFICATE_EXPIRING}


@dataclass(frozen=True)
class Step:
    state: Tracked
    events: tuple[LifecycleEvent, ...] = ()
    #: phase or Kubernetes version changed: the annotations must be written
    write: bool = False


def outcome(probe: ProbeResult, settings: LifecycleSettings) -> Outcome:
    if probe.unsupported:
        return Outcome.UNSUPPORTED
    if not probe.reachable:
        return Outcome.UNREACHABLE
    if not probe.readyz_ok or probe.error:
        return Outcome.UNHEALTHY
    if probe.nodes and probe.nodes_ready < probe.nodes * settings.min_nodes_ready:
        return Outcome.UNHEALTHY
    return Outcome.GOOD


def _parse_since(text: str) -> datetime | None:
    try:
        return datetime.fromtimestamp(parse_rfc3339(text), UTC)
    except ValueError:
        return None  # a missing or hand-edited timestamp: the phase counts from now


def register(obs: Observation, settings: LifecycleSettings, now: datetime) -> Step:
    """A newly seen Secret: resume from its phase annotations, or start Pending (ClusterRegistered)."""
    ann = obs.annotations
    text = ann.get(Annotation.PHASE, "")
    if text in set(Phase):
        phase = Phase(text)
        version = ann.get(Annotation.KUBERNETES_VERSION, "")
        resumed = Tracked(
            phase=phase,
            since=_parse_since(ann.get(Annotation.PHASE_SINCE, "")) or now,
            ready=_admitted(ann, phase),
            git_version=("v" + version) if version and not version.startswith("v") else version,
            credentials=obs.credentials,
            certificate_expires_at=obs.certificate_expires_at,
            message="resumed from the Secret's annotations",
        )
        return step(resumed, obs, settings, now)
    # a Secret re-created for a cluster that was admitted keeps it admitted (the engine says so)
    fresh = Tracked(phase=Phase.PENDING, since=now, credentials=obs.credentials, ready=ann.get(ADMITTED) == "true")
    first = LifecycleEvent(Reason.REGISTERED, "cluster Secret registered", Phase.PENDING, Phase.PENDING)
    later = step(replace(fresh, message="waiting for the first probe"), obs, settings, now)
    return replace(later, events=(first, *later.events), write=True)


def _admitted(annotations: Mapping[str, str], phase: Phase) -> bool:
    recorded = annotations.get(ADMITTED)
    if recorded is not None:
        return recorded == "true"
    # written before the admitted annotation existed: every phase but Pending is entered after the gate
    return phase is not Phase.PENDING


def removed(state: Tracked) -> LifecycleEvent:
    return LifecycleEvent(Reason.REMOVED, "cluster Secret deleted", state.phase, state.phase)


def _count(s: Tracked, result: Outcome) -> Tracked:
    if result is Outcome.GOOD:
        return replace(s, good=s.good + 1, failing=0, unreachable=0)
    if result is Outcome.UNHEALTHY:
        return replace(s, good=0, failing=s.failing + 1, unreachable=0, settled=0)
    if result is Outcome.UNREACHABLE:
        return replace(s, good=0, failing=s.failing + 1, unreachable=s.unreachable + 1, settled=0)
    return replace(s, good=0, failing=0, unreachable=0, settled=0)


def step(prev: Tracked, obs: Observation, settings: LifecycleSettings, now: datetime) -> Step:
    """One observation: new state, events, and whether the annotations must be written."""
    events: list[LifecycleEvent] = []
    s = prev

    def note(reason: Reason, message: str) -> None:
        events.append(LifecycleEvent(reason, message, s.phase, s.phase))

    if prev.credentials and obs.credentials != prev.credentials:
        note(Reason.CREDENTIALS_ROTATED, "cluster credentials changed in the Secret")
    s = replace(s, credentials=obs.credentials)
    if obs.certificate_expires_at != s.certificate_expires_at:
        s = replace(s, certificate_expires_at=obs.certificate_expires_at, certificate_warned=False)
    expires = s.certificate_expires_at
    if expires is not None and not s.certificate_warned and expires - now <= settings.certificate_warning:
        stamp = format_rfc3339(expires)
        if expires > now:
            message = f"a cluster certificate expires in {(expires - now).days} days ({stamp})"
        else:
            message = f"a cluster certificate expired at {stamp}"
        note(Reason.CERTIFICATE_EXPIRING, message)
        s = replace(s, certificate_warned=True)

    probe = obs.probe
    view: UpgradeView | None = None
    version_changed = False
    if probe is not None:
        result = outcome(probe, settings)
        s = _count(s, result)
        if probe.git_version:
            version_changed = bool(s.git_version) and s.git_version != probe.git_version
            view = upgrade_view(s.git_version, s.phase is Phase.UPGRADING, probe, obs.annotations)
            s = replace(s, git_version=probe.git_version)
        if probe.nodes_known:
            if s.nodes_known and probe.nodes != s.nodes and s.phase is not Phase.UPGRADING:
                note(Reason.SCALED, f"nodes {s.nodes} -> {probe.nodes} ({probe.nodes_ready} Ready)")
            s = replace(s, nodes_known=True, nodes=probe.nodes, nodes_ready=probe.nodes_ready, nodes_unknown="")
        elif probe.nodes_unknown:  # answered without node facts: unknown now, whatever was known before
            s = replace(s, nodes_known=False, nodes=0, nodes_ready=0, nodes_unknown=probe.nodes_unknown)
        if view is not None and view.done and result is Outcome.GOOD:
            s = replace(s, settled=s.settled + 1)
        elif result is Outcome.GOOD:
            s = replace(s, settled=0)
        s = replace(s, message=_message(s, probe, result, view, settings))

    target, reason, why = _decide(s, obs, view, settings)
    if target is s.phase:
        if version_changed and s.phase is not Phase.UPGRADING:
            note(Reason.UPGRADED, f"control plane {prev.git_version} -> {s.git_version}")
        if view is not None and s.phase is Phase.UPGRADING and view.target:
            s = replace(s, upgrade_to=view.target)
        return Step(s, tuple(events), write=version_changed)
    ready = s.ready or target in (Phase.READY, Phase.UPGRADING)
    upgrade_to = view.target if (target is Phase.UPGRADING and view is not None) else ""
    events.append(LifecycleEvent(reason, why or s.message, s.phase, target))
    s = replace(s, phase=target, since=now, ready=ready, upgrade_to=upgrade_to, settled=0, message=why or s.message)
    return Step(s, tuple(events), write=True)


def _decide(
    s: Tracked, obs: Observation, view: UpgradeView | None, settings: LifecycleSettings
) -> tuple[Phase, Reason, str]:
    """The phase this state should be in, the reason if that is a change, and a message."""
    keep = (s.phase, Reason.REGISTERED, "")
    if obs.annotations.get(Annotation.DECOMMISSION) == "true":
        return Phase.DECOMMISSIONING, Reason.DECOMMISSIONING, "decommission requested by annotation"
    if s.phase is Phase.DECOMMISSIONING:
        return Phase.PENDING, Reason.REGISTERED, "decommission cancelled; waiting for the readiness gate"
    if obs.probe is None or obs.probe.unsupported:
        return keep
    upgrading = view is not None and not view.done
    healthy_phase = Phase.UPGRADING if upgrading else Phase.READY
    r, u = settings.ready_after, settings.unreachable_after
    if not s.ready:
        if s.good >= r:
            return healthy_phase, Reason.UPGRADE_STARTED if upgrading else Reason.READY, ""
        return keep
    if s.unreachable >= u:
        return Phase.UNREACHABLE, Reason.UNREACHABLE, ""
    if s.phase in (Phase.UNREACHABLE, Phase.DEGRADED):
        return (healthy_phase, Reason.RECOVERED, "") if s.good >= r else keep
    if s.phase is Phase.UPGRADING:
        if view is not None and view.done and s.settled >= r:
            return (
                Phase.READY,
                Reason.UPGRADED,
                f"upgraded: control plane {s.git_version}, nodes on one minor",
            )
        return keep
    if s.failing >= u:
        return Phase.DEGRADED, Reason.DEGRADED, ""
    if upgrading:
        return Phase.UPGRADING, Reason.UPGRADE_STARTED, ""
    if s.phase is Phase.PENDING and s.good >= r:
        return Phase.READY, Reason.READY, ""
    return keep


def _message(
    s: Tracked, probe: ProbeResult, result: Outcome, view: UpgradeView | None, settings: LifecycleSettings
) -> str:
    if result is Outcome.UNSUPPORTED:
        return f"unsupported: {probe.unsupported}"
    if result is Outcome.UNREACHABLE:
        return f"unreachable ({s.unreachable} in a row): {probe.error}"
    if result is Outcome.UNHEALTHY:
        return f"unhealthy ({s.failing} in a row): {probe.error or _nodes(probe)}"
    if not s.ready and s.phase is Phase.PENDING:
        return f"readiness gate: {min(s.good, settings.ready_after)}/{settings.ready_after} good probes"
    if view is not None and not view.done:
        return f"upgrading to {view.target}: {view.detail}"
    return _nodes(probe)


def _nodes(probe: ProbeResult) -> str:
    if probe.nodes_known:
        return f"{probe.nodes_ready}/{probe.nodes} nodes Ready"
    return f"nodes unknown: {probe.nodes_unknown}" if probe.nodes_unknown else "nodes unknown"
