"""The rollout state machine, as a pure function like the lifecycle's (docs/guide/rollouts.md).

``step(state, spec, members, now, control) -> Step`` decides which clusters get the revision now,
the new state and the events; it does no I/O and reads no clock, so every rule is table-tested. The
leader runs it on every answer and writes the state back; the other replicas answer from the written
state through ``decisions`` without advancing it.

Rules:

- a cluster belongs to the first wave that selects it (or the wave its ``waveLabel`` names); waves go
  in order, each one rolled while at most ``maxUnavailable`` of its clusters are unavailable: not
  Ready (Upgrading, Unreachable, Degraded, Decommissioning, Pending, or held by the upgrade gate) or
  given the revision and not yet Synced and Healthy at it;
- a wave has rolled when every cluster of it (but a Decommissioning one) runs the revision Synced and
  Healthy; it has baked when that held for ``bakeTime``; then the next wave starts;
- a given cluster keeps the revision (never backwards); a waiting one keeps what its Application
  runs; a cluster of a wave already reached (one admitted later, one that was down) gets the revision
  as soon as it is Ready, inside its window;
- an Application of a reached wave Degraded or failing to sync pauses the rollout; ``pause`` (kept
  while the annotation says so), ``resume`` and ``abort`` come from the ApplicationSet's annotation;
- a revision rolled out before is refused unless the input declares a rollback.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from enum import StrEnum

from argocd_lifecycle.generators.rollout.errors import RolloutInputError
from argocd_lifecycle.generators.rollout.spec import RolloutSpec
from argocd_lifecycle.generators.rollout.state import MAX_HISTORY, Control, RolloutState, Status
from argocd_lifecycle.generators.rollout.windows import Windows, cluster_windows
from argocd_lifecycle.model import Phase, RolloutReason

MAX_REASON = 1000


class ClusterRollout(StrEnum):
    """``rollout.state`` of one parameter set."""

    WAITING = "Waiting"
    ROLLING = "Rolling"
    BAKING = "Baking"
    DONE = "Done"
    HELD = "Held"
    PAUSED = "Paused"


#: Event reasons on the ApplicationSet (in core: the timeline reads them too)
Reason = RolloutReason


_WARNINGS = {Reason.PAUSED, Reason.ABORTED, Reason.REFUSED}


@dataclass(frozen=True)
class Member:
    """One cluster of the answer, as the rollout sees it."""

    name: str
    phase: Phase = Phase.READY
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    #: held by the upgrade gate (blockers found for its upgrade)
    gated: bool = False
    #: its Application's ``spec.source.targetRevision``; "" without an Application
    revision: str = ""
    synced: bool = False
    healthy: bool = False
    #: why its Application stops a rollout ("Degraded", "sync failed"), "" when it does not
    failing: str = ""
    application: str = ""

    @property
    def ready(self) -> bool:
        return self.phase is Phase.READY and not self.gated


@dataclass(frozen=True)
class Decision:
    revision: str
    wave: str
    state: ClusterRollout


@dataclass(frozen=True)
class RolloutEvent:
    reason: Reason
    message: str
    #: the Applications that caused it (a pause)
    applications: tuple[str, ...] = ()

    @property
    def warning(self) -> bool:
        return self.reason in _WARNINGS


@dataclass(frozen=True)
class Step:
    state: RolloutState
    decisions: Mapping[str, Decision]
    events: tuple[RolloutEvent, ...] = ()
    #: the control annotation was acted on and should be removed (resume and abort are one-shot)
    consumed: bool = False
    #: when to look again although nothing changes (a bake ends, a window opens is not known)
    wake: datetime | None = None


def _at(member: Member, revision: str) -> bool:
    return member.revision == revision and member.synced and member.healthy


def _most_common(members: Sequence[Member]) -> str:
    counts = Counter(m.revision for m in members if m.revision)
    return min(counts, key=lambda r: (-counts[r], r)) if counts else ""


def _window_open(spec: RolloutSpec, wave: int, member: Member, now: datetime) -> bool:
    try:
        own = cluster_windows(member.annotations)
    except RolloutInputError:
        return False  # a window the cluster's owner wrote and we cannot read: it waits
    windows: Windows = own if own is not None else spec.windows_of(wave)
    return windows.open_at(now)


def _start(
    spec: RolloutSpec, previous: str, history: tuple[str, ...], members: Sequence[Member], now: datetime
) -> RolloutState:
    given = frozenset(m.name for m in members if m.revision == spec.revision)
    return RolloutState(spec.revision, previous, Status.ROLLING, 0, now, given=given, history=history[-MAX_HISTORY:])


def _cut(text: str) -> str:
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 3] + "..."


Tell = Callable[..., None]


def step(
    state: RolloutState | None,
    spec: RolloutSpec,
    members: Sequence[Member],
    now: datetime,
    control: Control = Control.NONE,
) -> Step:
    """One look at the rollout: the new state, each member's revision, and what to tell."""
    events: list[RolloutEvent] = []
    waves = [spec.wave_of(m.labels) for m in members]

    def tell(reason: Reason, message: str, applications: tuple[str, ...] = ()) -> None:
        events.append(RolloutEvent(reason, _cut(message), applications))

    s = _begin(state, spec, members, now, tell)
    consumed, wake = False, None
    if s.revision == spec.revision:  # else a refused rollback: nothing moves
        s, consumed = _control(s, spec, members, now, control=control, tell=tell)
        s = _check(s, spec, members, waves, now, tell=tell)
        s, wake = _advance(s, spec, (members, waves), now, tell)
    return Step(s, decisions(s, spec, members, waves), tuple(events), consumed, wake)


def _begin(
    state: RolloutState | None, spec: RolloutSpec, members: Sequence[Member], now: datetime, tell: Tell
) -> RolloutState:
    """The state this input continues, or the rollout it starts."""
    if state is None:
        previous = _most_common(members)
        s = _start(spec, previous, (previous,) if previous not in ("", spec.revision) else (), members, now)
        if previous in ("", spec.revision) and all(m.revision in ("", spec.revision) for m in members):
            # nothing runs another revision: adopting the rollout as it stands, not starting one
            return replace(s, status=Status.DONE, wave=len(spec.waves))
        tell(Reason.WAVE_STARTED, f"rollout of {spec.revision}: wave {spec.waves[0].name} started")
        return s
    if spec.revision == state.revision:
        return state
    older = spec.revision in state.history
    if older and not spec.rollback:
        if state.refused == spec.revision:
            return state
        tell(
            Reason.REFUSED,
            f"rollout of {spec.revision} refused: it was rolled out before {state.revision}; "
            "declare rollback: true to roll back",
        )
        return replace(state, refused=spec.revision)
    previous = state.revision if state.status is Status.DONE else state.previous
    # a rollback forgets what came after the revision it returns to, so those may roll again
    kept = state.history[: state.history.index(spec.revision)] if older else (*state.history, state.revision)
    history = tuple(r for r in kept if r and r != spec.revision)
    verb = "rollback" if older else "rollout"
    tell(Reason.WAVE_STARTED, f"{verb} of {spec.revision}: wave {spec.waves[0].name} started")
    return _start(spec, previous, history, members, now)


def _control(
    s: RolloutState, spec: RolloutSpec, members: Sequence[Member], now: datetime, *, control: Control, tell: Tell
) -> tuple[RolloutState, bool]:
    """The operator's annotation: (new state, whether it was a one-shot to remove)."""
    if control is Control.ABORT:
        if s.status not in (Status.DONE, Status.ABORTED):
            s = replace(s, status=Status.ABORTED, since=now, baked_since=None, reason="aborted by annotation")
            tell(Reason.ABORTED, f"rollout of {s.revision} aborted by annotation: clusters keep what they run")
        return s, True
    if control is Control.RESUME:
        if s.status is Status.PAUSED:
            failing = frozenset(m.name for m in members if m.failing and m.name in s.given)
            s = replace(s, status=Status.ROLLING, since=now, reason="", acknowledged=failing)
            tell(Reason.RESUMED, f"rollout of {s.revision} resumed at wave {_name(spec, s.wave)}")
        return s, True
    if control is Control.PAUSE and s.status in (Status.ROLLING, Status.BAKING):
        s = replace(s, status=Status.PAUSED, since=now, baked_since=None, reason="paused by annotation")
        tell(Reason.PAUSED, f"rollout of {s.revision} paused by annotation at wave {_name(spec, s.wave)}")
    return s, False


def _check(
    s: RolloutState,
    spec: RolloutSpec,
    members: Sequence[Member],
    waves: Sequence[int | None],
    now: datetime,
    *,
    tell: Tell,
) -> RolloutState:
    """A failing Application of a reached wave pauses the rollout (unless a resume accepted it)."""
    # an acknowledged failure that recovered may pause the rollout again
    s = replace(s, acknowledged=frozenset(m.name for m in members if m.failing and m.name in s.acknowledged))
    if s.status not in (Status.ROLLING, Status.BAKING):
        return s
    failing = [
        m
        for m, w in zip(members, waves, strict=True)
        if m.failing and m.name in s.given and m.name not in s.acknowledged and w is not None and w <= s.wave
    ]
    if not failing:
        return s
    apps = tuple(m.application or m.name for m in failing)
    why = ", ".join(f"{m.application or m.name} {m.failing}" for m in failing)
    tell(Reason.PAUSED, f"rollout of {s.revision} paused at wave {_name(spec, s.wave)}: {why}", apps)
    return replace(s, status=Status.PAUSED, since=now, baked_since=None, reason=_cut(why))


def _name(spec: RolloutSpec, wave: int) -> str:
    return spec.waves[wave].name if wave < len(spec.waves) else "(done)"


def _advance(
    s: RolloutState,
    spec: RolloutSpec,
    fleet: tuple[Sequence[Member], Sequence[int | None]],
    now: datetime,
    tell: Tell,
) -> tuple[RolloutState, datetime | None]:
    """Give the revision where the rules allow, and move through bakes and waves as far as they go."""
    members, waves = fleet
    given = set(s.given)
    live = s.status in (Status.ROLLING, Status.BAKING)
    # stragglers of waves already passed (admitted later, or back from down): the revision when Ready,
    # unless the rollout is paused or was aborted
    if s.status in (Status.ROLLING, Status.BAKING, Status.DONE):
        passed = len(spec.waves) if s.status is Status.DONE else s.wave
        for m, w in zip(members, waves, strict=True):
            if w is not None and w < passed and m.ready and m.name not in given and _window_open(spec, w, m, now):
                given.add(m.name)
    s = replace(s, given=frozenset(given))
    wake: datetime | None = None
    while live and s.wave < len(spec.waves):
        inside = [m for m, w in zip(members, waves, strict=True) if w == s.wave]
        budget = spec.budget_of(s.wave).of(len(inside))
        unavailable = sum(1 for m in inside if not m.ready or (m.name in given and not _at(m, s.revision)))
        for m in inside:
            if unavailable >= budget:
                break
            if m.ready and m.name not in given and _window_open(spec, s.wave, m, now):
                given.add(m.name)
                unavailable += 1
        s = replace(s, given=frozenset(given))
        settled = all(m.name in given and _at(m, s.revision) for m in inside if m.phase is not Phase.DECOMMISSIONING)
        if not settled:
            if s.status is Status.BAKING:
                s = replace(s, status=Status.ROLLING, baked_since=None)
            break
        baked_since = s.baked_since or now
        s = replace(s, status=Status.BAKING, baked_since=baked_since)
        ends = baked_since + timedelta(seconds=spec.bake_seconds)
        if now < ends:
            wake = ends
            break
        name = spec.waves[s.wave].name
        tell(Reason.WAVE_BAKED, f"rollout of {s.revision}: wave {name} baked ({len(inside)} clusters)")
        s = replace(s, wave=s.wave + 1, since=now, baked_since=None, status=Status.ROLLING)
        if s.wave == len(spec.waves):
            s = replace(s, status=Status.DONE)
            tell(Reason.FINISHED, f"rollout of {s.revision} finished: {len(given)} clusters run it")
        else:
            tell(Reason.WAVE_STARTED, f"rollout of {s.revision}: wave {spec.waves[s.wave].name} started")
    return s, wake


def decisions(
    s: RolloutState, spec: RolloutSpec, members: Sequence[Member], waves: Sequence[int | None] | None = None
) -> dict[str, Decision]:
    """Each member's revision, wave and state under ``s`` (without advancing it: the followers' view)."""
    if waves is None:
        waves = [spec.wave_of(m.labels) for m in members]
    out: dict[str, Decision] = {}
    for m, w in zip(members, waves, strict=True):
        wave = spec.waves[w].name if w is not None else ""
        keep = m.revision or s.previous or s.revision
        if m.name in s.given:
            # Rolling: on its way to the revision; Baking: at it while its wave bakes; Done: at it
            if not _at(m, s.revision):
                state = ClusterRollout.ROLLING
            elif s.status is Status.BAKING and w == s.wave:
                state = ClusterRollout.BAKING
            else:
                state = ClusterRollout.DONE
            out[m.name] = Decision(s.revision, wave, state)
        elif not m.ready:
            out[m.name] = Decision(keep, wave, ClusterRollout.HELD)
        elif s.status in (Status.PAUSED, Status.ABORTED) and w is not None and w <= s.wave:
            out[m.name] = Decision(keep, wave, ClusterRollout.PAUSED)
        else:
            out[m.name] = Decision(keep, wave, ClusterRollout.WAITING)
    return out
