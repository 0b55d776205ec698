"""What the soak knows it did to the fleet, and the verdict it expects from the mass-drop guard.

The soak drives the real system; this model is its independent expectation. After each event that
changes which clusters the ApplicationSet selects, ``judge`` says what the guard must do with the
Applications that exist: the clusters those Applications target and the answer no longer holds are
lost unless they left explicitly (decommissioned, then their Secret deleted). Losing more than the
threshold (and no ``allowMassDrop``) must be held, so none of them may be deleted; a smaller loss, or
one the input allows, may be given, and those deletions are allowed drops. Every other deletion of an
Application is wrongful.
"""

from __future__ import annotations

from dataclasses import dataclass, field

HOME = "soak"  # the env label the ApplicationSet selects by default
AWAY = "soak-b"  # another env: a relabelled cluster, or a widened/moved selector


@dataclass(frozen=True)
class Verdict:
    lost: frozenset[str]
    targets: int
    held: bool

    @property
    def percent(self) -> float:
        return 100.0 * len(self.lost) / self.targets if self.targets else 0.0


@dataclass
class Model:
    clusters: list[str]
    threshold: float = 50.0
    present: set[str] = field(default_factory=set)
    env: dict[str, str] = field(default_factory=dict)
    selector: frozenset[str] = frozenset({HOME})
    allow: bool = False
    #: decommissioned, then their Secret deleted (until registered again)
    departed: set[str] = field(default_factory=set)
    decommissioning: set[str] = field(default_factory=set)
    down: set[str] = field(default_factory=set)
    upgrading: set[str] = field(default_factory=set)
    #: clusters whose Application may be deleted now, and why
    permitted: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.present:
            self.present = set(self.clusters)
        for name in self.clusters:
            self.env.setdefault(name, HOME)

    def selected(self) -> set[str]:
        return {c for c in self.present if self.env[c] in self.selector}

    def judge(self, apps: set[str]) -> Verdict:
        """The guard's verdict on the answer after the last change, for the Applications ``apps``."""
        lost = frozenset(apps - self.selected() - self.departed)
        verdict = Verdict(lost, len(apps), held=bool(lost) and not self.allow and
                          100.0 * len(lost) / len(apps) > self.threshold)  # fmt: skip
        if not verdict.held:
            reason = "allowMassDrop" if self.allow and lost else "drop within the threshold"
            for name in lost:
                self.permitted.setdefault(name, reason)
        return verdict

    def settled(self, admitted: set[str]) -> None:
        """After a change settled: a cluster selected (and admitted) again may not lose its Application
        any more. A retired cluster registered again is new: until it passes the gate, its old
        Application may still go."""
        for name in list(self.permitted):
            if name in self.selected() and name not in self.departed and name in admitted:
                del self.permitted[name]

    def expected_apps(self, admitted: set[str]) -> set[str]:
        """The Applications Argo CD ends up with when nothing is held: every selected cluster that
        passed the readiness gate (or was admitted before)."""
        return self.selected() & admitted
