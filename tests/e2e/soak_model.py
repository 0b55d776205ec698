"""What the soak knows it did to the fleet, and the verdict it expects from the mass-drop guard.

The soak drives the real system; this model is its independent expectation. The fleet (which clusters
are registered, their labels, which left explicitly) is one; each ApplicationSet has its own input and
its own guard: the soak's own in the Argo CD namespace, whose input the soak edits, and a tenant's,
whose input never changes. After each event that changes which clusters an ApplicationSet selects,
``judge`` says what the guard must do with the Applications that exist: the clusters those Applications
target and the answer no longer holds are lost unless they left explicitly (decommissioned, then their
Secret deleted). Losing more than the threshold (and no ``allowMassDrop``) must be held, so none of
them may be deleted; a smaller loss, or one the input allows, may be given, and those deletions are
allowed drops. Every other deletion of an Application is wrongful.
"""

from __future__ import annotations

from dataclasses import dataclass, field

HOME = "soak"  # the env label the ApplicationSets select by default
AWAY = "soak-b"  # another env: a relabelled cluster, or a widened/moved selector
#: the ApplicationSets the model judges: the soak's own, and the tenant's
OWN, TENANT = "own", "tenant"


@dataclass(frozen=True)
class Verdict:
    lost: frozenset[str]
    targets: int
    held: bool

    @property
    def percent(self) -> float:
        return 100.0 * len(self.lost) / self.targets if self.targets else 0.0


@dataclass
class Input:
    """One ApplicationSet's input as the soak last wrote it, and what its guard may let go."""

    selector: frozenset[str] = frozenset({HOME})
    allow: bool = False
    #: clusters whose Application may be deleted now, and why
    permitted: dict[str, str] = field(default_factory=dict)
    #: the last verdict held the answer
    held: bool = False


@dataclass
class Model:
    clusters: list[str]
    threshold: float = 50.0
    present: set[str] = field(default_factory=set)
    env: dict[str, str] = field(default_factory=dict)
    #: decommissioned, then their Secret deleted (until registered again)
    departed: set[str] = field(default_factory=set)
    decommissioning: set[str] = field(default_factory=set)
    down: set[str] = field(default_factory=set)
    upgrading: set[str] = field(default_factory=set)
    inputs: dict[str, Input] = field(default_factory=lambda: {OWN: Input(), TENANT: Input()})

    def __post_init__(self) -> None:
        if not self.present:
            self.present = set(self.clusters)
        for name in self.clusters:
            self.env.setdefault(name, HOME)

    @property
    def holding(self) -> bool:
        return any(i.held for i in self.inputs.values())

    def selected(self, appset: str) -> set[str]:
        selector = self.inputs[appset].selector
        return {c for c in self.present if self.env[c] in selector}

    def depart(self, name: str) -> None:
        """``name`` was decommissioned and its Secret is being deleted: every ApplicationSet may let go."""
        for given in self.inputs.values():
            given.permitted[name] = "explicit departure"
        self.departed.add(name)
        self.decommissioning.discard(name)

    def judge(self, appset: str, apps: set[str]) -> Verdict:
        """The guard's verdict on ``appset``'s answer after the last change, for its Applications ``apps``."""
        given = self.inputs[appset]
        lost = frozenset(apps - self.selected(appset) - self.departed)
        verdict = Verdict(lost, len(apps), held=bool(lost) and not given.allow and
                          100.0 * len(lost) / len(apps) > self.threshold)  # fmt: skip
        given.held = verdict.held
        if not verdict.held:
            reason = "allowMassDrop" if given.allow and lost else "drop within the threshold"
            for name in lost:
                given.permitted.setdefault(name, reason)
        return verdict

    def settled(self, appset: str, admitted: set[str]) -> None:
        """After a change settled: a cluster selected (and admitted) again may not lose its Application
        any more. A retired cluster registered again is new: until it passes the gate, its old
        Application may still go."""
        permitted = self.inputs[appset].permitted
        for name in list(permitted):
            if name in self.selected(appset) and name not in self.departed and name in admitted:
                del permitted[name]

    def expected_apps(self, appset: str, admitted: set[str]) -> set[str]:
        """The Applications Argo CD ends up with when nothing is held: every selected cluster that
        passed the readiness gate (or was admitted before)."""
        return self.selected(appset) & admitted
