"""Table tests of the pure lifecycle state machine: every transition, each rule in its priority order."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from argocd_lifecycle.generators.fleet.lifecycle import (
    ADMITTED,
    LifecycleSettings,
    Observation,
    Step,
    Tracked,
    register,
    removed,
    step,
)
from argocd_lifecycle.generators.fleet.probe_result import ProbeResult
from argocd_lifecycle.model import Annotation, Phase, Reason

T0 = datetime(2026, 1, 1, tzinfo=UTC)
S = LifecycleSettings(ready_after=3, unreachable_after=3)


def good(version: str = "v1.29.3", nodes: int = 3, ready: int | None = None, minors=((1, 29),)) -> ProbeResult:
    return ProbeResult(
        reachable=True,
        git_version=version,
        readyz_ok=True,
        nodes_known=True,
        nodes=nodes,
        nodes_ready=nodes if ready is None else ready,
        node_minors=tuple(minors),
    )


def sick(message: str = "/readyz: HTTP 500") -> ProbeResult:
    return replace(good(), readyz_ok=False, error=message)


def down(message: str = "connect: connection refused") -> ProbeResult:
    return ProbeResult(reachable=False, error=message)


class Run:
    """Drives the machine one observation per call, one minute apart, and records what came out."""

    def __init__(self, annotations: dict[str, str] | None = None, settings: LifecycleSettings = S) -> None:
        self.settings = settings
        self.annotations = dict(annotations or {})
        self.credentials = "c1"
        self.expires: datetime | None = None
        self.now = T0
        first = register(self._obs(None), settings, self.now)
        self.state: Tracked = first.state
        self.steps: list[Step] = [first]

    def _obs(self, probe: ProbeResult | None) -> Observation:
        return Observation(self.annotations, self.credentials, self.expires, probe)

    def probe(self, *probes: ProbeResult) -> Run:
        for p in probes:
            self.now += timedelta(minutes=1)
            out = step(self.state, self._obs(p), self.settings, self.now)
            self.state = out.state
            self.steps.append(out)
        return self

    def secret_changed(self) -> Run:
        self.now += timedelta(minutes=1)
        out = step(self.state, self._obs(None), self.settings, self.now)
        self.state = out.state
        self.steps.append(out)
        return self

    @property
    def phases(self) -> list[Phase]:
        return [s.state.phase for s in self.steps]

    @property
    def reasons(self) -> list[Reason]:
        return [e.reason for s in self.steps for e in s.events]

    @property
    def last(self) -> Step:
        return self.steps[-1]


def ready_run(**kw) -> Run:
    return Run(**kw).probe(good(), good(), good())


def test_register_is_pending_with_event_and_written() -> None:
    run = Run()
    assert run.phases == [Phase.PENDING]
    assert run.reasons == [Reason.REGISTERED]
    assert run.last.write and not run.state.ready


def test_readiness_gate_needs_ready_after_good_probes_in_a_row() -> None:
    run = Run().probe(good(), good(), sick(), good(), good())
    assert run.phases[-1] is Phase.PENDING and "2/3" in run.state.message
    run.probe(good())
    assert run.phases[-1] is Phase.READY and run.reasons[-1] is Reason.READY and run.state.ready
    assert run.state.since == run.now and run.last.write


def test_nodes_unknown_is_not_unhealthy_the_gate_rests_on_version_and_readyz() -> None:
    """A cluster whose credentials may not list nodes passes the gate on /version and /readyz alone, and
    its state says the nodes are unknown and why (what the parameters and the fleet page show)."""
    forbidden = ProbeResult(reachable=True, git_version="v1.29.3", readyz_ok=True, nodes_unknown="HTTP 403")
    run = Run().probe(forbidden, forbidden, forbidden)
    assert run.phases[-1] is Phase.READY and run.state.ready and run.reasons[-1] is Reason.READY
    assert not run.state.nodes_known and run.state.nodes_unknown == "HTTP 403"
    run.probe(forbidden)
    assert run.phases[-1] is Phase.READY and run.state.message == "nodes unknown: HTTP 403"
    run.probe(good(nodes=4))  # known again: counted, the reason gone
    assert (run.state.nodes_known, run.state.nodes, run.state.nodes_unknown) == (True, 4, "")
    run.probe(forbidden)  # unknown again: the old counts are not shown as current
    assert (run.state.nodes_known, run.state.nodes, run.state.nodes_ready) == (False, 0, 0)
    assert run.phases[-1] is Phase.READY
    run.probe(down())  # an unreachable probe says nothing about the nodes
    assert run.state.nodes_unknown == "HTTP 403"


def test_pending_cluster_that_never_answers_stays_pending_with_the_reason() -> None:
    run = Run().probe(down(), down(), down(), down())
    assert run.phases[-1] is Phase.PENDING
    assert "connection refused" in run.state.message and not run.state.ready


def test_unreachable_after_n_failures_then_recovered_after_gate() -> None:
    run = ready_run().probe(down(), down())
    assert run.phases[-1] is Phase.READY  # hysteresis: two failures are not enough
    run.probe(down())
    assert run.phases[-1] is Phase.UNREACHABLE and run.reasons[-1] is Reason.UNREACHABLE
    assert run.steps[-1].events[-1].previous_phase is Phase.READY and run.steps[-1].events[-1].warning
    assert run.state.ready  # admitted clusters stay admitted
    run.probe(good(), good())
    assert run.phases[-1] is Phase.UNREACHABLE
    run.probe(good())
    assert run.phases[-1] is Phase.READY and run.reasons[-1] is Reason.RECOVERED


def test_a_single_good_probe_resets_the_failure_streak() -> None:
    run = ready_run().probe(down(), down(), good(), down(), down())
    assert run.phases[-1] is Phase.READY


def test_degraded_when_readyz_fails_or_nodes_not_ready_and_recovers() -> None:
    run = ready_run().probe(sick(), sick(), sick())
    assert run.phases[-1] is Phase.DEGRADED and run.reasons[-1] is Reason.DEGRADED
    run.probe(good(), good(), good())
    assert run.phases[-1] is Phase.READY and run.reasons[-1] is Reason.RECOVERED
    run.probe(*[good(nodes=10, ready=8)] * 3)  # 80% < 90%
    assert run.phases[-1] is Phase.DEGRADED and "8/10" in run.steps[-1].events[-1].message


def test_degraded_becomes_unreachable_when_it_stops_answering() -> None:
    run = ready_run().probe(sick(), sick(), sick(), down(), down(), down())
    assert run.phases[-4:] == [Phase.DEGRADED, Phase.DEGRADED, Phase.DEGRADED, Phase.UNREACHABLE]


def test_unreachable_stays_until_good_probes_even_when_reachable_but_sick() -> None:
    run = ready_run().probe(down(), down(), down(), sick(), sick(), sick(), sick())
    assert run.phases[-1] is Phase.UNREACHABLE and "unhealthy" in run.state.message


def test_upgrade_by_annotation_starts_and_finishes_after_gate() -> None:
    run = ready_run()
    run.annotations[Annotation.UPGRADE_TO] = "1.30"
    run.probe(good())
    assert run.phases[-1] is Phase.UPGRADING and run.reasons[-1] is Reason.UPGRADE_STARTED
    assert run.state.upgrade_to == "1.30"
    run.probe(good(version="v1.30.1", minors=((1, 29), (1, 30))), sick())  # rolling: tolerated
    assert run.phases[-1] is Phase.UPGRADING
    run.probe(good(version="v1.30.1", minors=((1, 30),)), good(version="v1.30.1", minors=((1, 30),)))
    assert run.phases[-1] is Phase.UPGRADING
    run.probe(good(version="v1.30.1", minors=((1, 30),)))
    assert run.phases[-1] is Phase.READY and run.reasons[-1] is Reason.UPGRADED
    assert run.state.upgrade_to == "" and run.state.git_version == "v1.30.1"
    run.probe(good(version="v1.30.1", minors=((1, 30),)))  # the stale annotation does not restart it
    assert run.phases[-1] is Phase.READY


def test_upgrade_detected_from_mixed_node_minors() -> None:
    run = ready_run().probe(good(minors=((1, 29), (1, 30))))
    assert run.phases[-1] is Phase.UPGRADING and run.state.upgrade_to == "1.30"


def test_upgrade_detected_when_control_plane_changes_and_nodes_lag() -> None:
    run = ready_run().probe(good(version="v1.30.0", minors=((1, 29),)))
    assert run.phases[-1] is Phase.UPGRADING and run.state.upgrade_to == "1.30"
    run.probe(good(version="v1.30.0", minors=((1, 29),)))  # still lagging: still upgrading
    assert run.phases[-1] is Phase.UPGRADING
    run.probe(*[good(version="v1.30.0", minors=((1, 30),))] * 3)
    assert run.phases[-1] is Phase.READY and run.reasons[-1] is Reason.UPGRADED


def test_steady_version_skew_is_not_an_upgrade() -> None:
    run = Run().probe(*[good(version="v1.30.0", minors=((1, 29),))] * 5)
    assert run.phases[-1] is Phase.READY


def test_patch_upgrade_rewrites_version_without_phase_change() -> None:
    run = ready_run().probe(good(version="v1.29.4"))
    assert run.phases[-1] is Phase.READY and run.last.write
    assert run.reasons[-1] is Reason.UPGRADED and "v1.29.3 -> v1.29.4" in run.last.events[-1].message
    assert run.state.since == T0 + timedelta(minutes=3)  # phase-since unchanged


def test_new_cluster_already_upgrading_passes_gate_into_upgrading() -> None:
    run = Run().probe(*[good(minors=((1, 28), (1, 29)))] * 3)
    assert run.phases[-1] is Phase.UPGRADING and run.state.ready
    assert run.reasons[-1] is Reason.UPGRADE_STARTED


def test_unreachable_during_upgrade_recovers_into_upgrading() -> None:
    mixed = good(minors=((1, 29), (1, 30)))
    run = ready_run().probe(mixed, down(), down(), down())
    assert run.phases[-1] is Phase.UNREACHABLE
    run.probe(mixed, mixed, mixed)
    assert run.phases[-1] is Phase.UPGRADING and run.reasons[-1] is Reason.RECOVERED


def test_scale_event_without_phase_change_and_not_while_upgrading() -> None:
    run = ready_run().probe(good(nodes=5))
    assert run.reasons[-1] is Reason.SCALED and "3 -> 5" in run.last.events[-1].message
    assert not run.last.write and run.phases[-1] is Phase.READY
    run.probe(good(nodes=6, minors=((1, 29), (1, 30))), good(nodes=7, minors=((1, 29), (1, 30))))
    assert Reason.SCALED not in [e.reason for e in run.last.events]


def test_credentials_rotation_event_on_secret_change() -> None:
    run = ready_run()
    run.credentials = "c2"
    run.secret_changed()
    assert run.last.events[-1].reason is Reason.CREDENTIALS_ROTATED
    assert not run.last.write and run.phases[-1] is Phase.READY
    run.secret_changed()
    assert run.last.events == ()


def test_certificate_expiring_once_per_expiry() -> None:
    run = ready_run()
    run.expires = T0 + timedelta(days=30)
    run.secret_changed()
    assert run.last.events == ()
    run.now += timedelta(days=17)  # 13 days left
    run.probe(good())
    assert [e.reason for e in run.last.events] == [Reason.CERTIFICATE_EXPIRING]
    assert "in 12 days" in run.last.events[0].message or "in 13 days" in run.last.events[0].message
    run.probe(good())
    assert run.last.events == ()
    run.expires = run.now + timedelta(days=2)  # a new certificate that expires soon too
    run.probe(good())
    assert [e.reason for e in run.last.events] == [Reason.CERTIFICATE_EXPIRING]
    run.expires = run.now - timedelta(hours=1)  # and one already expired
    run.probe(good())
    assert run.last.events[0].message.startswith("a cluster certificate expired at ")


def test_decommission_wins_over_everything_and_can_be_cancelled() -> None:
    run = ready_run()
    run.annotations[Annotation.DECOMMISSION] = "true"
    run.secret_changed()
    assert run.phases[-1] is Phase.DECOMMISSIONING and run.reasons[-1] is Reason.DECOMMISSIONING
    run.probe(down(), down(), down(), good(minors=((1, 29), (1, 30))))
    assert set(run.phases[-4:]) == {Phase.DECOMMISSIONING}
    del run.annotations[Annotation.DECOMMISSION]
    run.secret_changed()
    assert run.phases[-1] is Phase.PENDING and run.state.ready  # still admitted
    run.probe(good(), good(), good())
    assert run.phases[-1] is Phase.READY


def test_decommission_on_a_new_secret() -> None:
    run = Run(annotations={Annotation.DECOMMISSION: "true"})
    assert run.phases == [Phase.DECOMMISSIONING]
    assert run.reasons == [Reason.REGISTERED, Reason.DECOMMISSIONING]


def test_resume_from_annotations_without_registered_event() -> None:
    ann = {
        Annotation.PHASE: "Unreachable",
        Annotation.PHASE_SINCE: "2025-12-31T10:00:00Z",
        Annotation.KUBERNETES_VERSION: "1.29.3",
    }
    run = Run(annotations=ann)
    assert run.reasons == [] and not run.last.write
    assert run.state.phase is Phase.UNREACHABLE and run.state.ready
    assert run.state.since == datetime(2025, 12, 31, 10, tzinfo=UTC) and run.state.git_version == "v1.29.3"
    run.probe(good(), good(), good())
    assert run.phases[-1] is Phase.READY and run.reasons[-1] is Reason.RECOVERED


@pytest.mark.parametrize("since", ["2025-12-31T12:00:00+02:00", "2025-12-31T10:00:00.5Z"])
def test_resume_reads_any_rfc3339_zone(since: str) -> None:
    run = Run(annotations={Annotation.PHASE: "Ready", Annotation.PHASE_SINCE: since})
    assert run.state.since.replace(microsecond=0) == datetime(2025, 12, 31, 10, tzinfo=UTC)


@pytest.mark.parametrize("since", ["", "yesterday", "2025-12-31T10:00:00"])
def test_resume_without_a_usable_phase_since_counts_from_now(since: str) -> None:
    run = Run(annotations={Annotation.PHASE: "Ready", Annotation.PHASE_SINCE: since})
    assert run.state.phase is Phase.READY and run.state.since == T0


def test_unsupported_auth_stays_pending_with_reason() -> None:
    run = Run().probe(*[ProbeResult(reachable=False, unsupported="exec-provider auth is not supported")] * 4)
    assert run.phases[-1] is Phase.PENDING and run.state.message.startswith("unsupported: exec-provider")


def test_removed_event_carries_last_phase() -> None:
    event = removed(ready_run().state)
    assert event.reason is Reason.REMOVED and event.phase is Phase.READY


def test_zero_nodes_is_healthy_for_a_bare_control_plane() -> None:
    run = Run().probe(*[good(nodes=0, minors=())] * 3)
    assert run.phases[-1] is Phase.READY


def test_resume_keeps_an_admitted_cluster_admitted_whatever_its_phase() -> None:
    """A decommission cancelled leaves an admitted cluster Pending: the admitted annotation says so."""
    run = Run(annotations={Annotation.PHASE: "Pending", ADMITTED: "true"})
    assert run.state.phase is Phase.PENDING and run.state.ready
    never = Run(annotations={Annotation.PHASE: "Decommissioning", Annotation.DECOMMISSION: "true", ADMITTED: "false"})
    assert never.state.phase is Phase.DECOMMISSIONING and not never.state.ready
    # Secrets annotated before the admitted annotation existed: every phase but Pending implies the gate
    assert Run(annotations={Annotation.PHASE: "Degraded"}).state.ready
    assert not Run(annotations={Annotation.PHASE: "Pending"}).state.ready
