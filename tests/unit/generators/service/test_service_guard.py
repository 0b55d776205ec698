"""The mass-drop guard against each way it used to be bypassed, with Argo CD's Applications as its baseline.

``AppsBaseline`` stands for the Applications cache: after every answer given, the test applies it as
the ApplicationSet controller would (one Application per answered cluster), so what the guard
compares with is what Argo CD would delete, as in production.
"""

from __future__ import annotations

from typing import Any

import pytest

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.generators.fleet.view import Target
from argocd_lifecycle.generators.service.answers import Answer, ParamsService
from argocd_lifecycle.generators.service.errors import Unavailable
from argocd_lifecycle.generators.service.guard import DropSettling, Fleet, MassDropGuard, MassDropRefused, lost
from argocd_lifecycle.generators.service.inputs import ParamsRequest, parse_parameters
from argocd_lifecycle.generators.service.policy import PolicyTable
from argocd_lifecycle.model import Phase

from .fleet_fixture import AppsBaseline, MemoryFleet, Reported, cluster

APPSET = "guestbook"
PROD = {"labelSelector": {"matchLabels": {"env": "prod"}}}


def _fleet(n: int = 6) -> MemoryFleet:
    return MemoryFleet([cluster(f"c{i}") for i in range(n)])


def _service(fleet: MemoryFleet, apps: AppsBaseline, reporter: Reported | None = None) -> ParamsService:
    """A fresh process (or replica): nothing in memory but what the baseline says."""
    return ParamsService(
        fleet, PolicyTable.default(), max_staleness=60, max_drop_percent=50, baseline=apps, reporter=reporter, settle=0
    )


def _ask(service: ParamsService, params: dict[str, Any]) -> Answer:
    return service.execute(ParamsRequest(APPSET, parse_parameters(params), repr(sorted(params.items()))))


def _applied(service: ParamsService, apps: AppsBaseline, fleet: MemoryFleet, params: dict[str, Any]) -> list[str]:
    """Ask, and let Argo CD act on the answer."""
    names = sorted(_ask(service, params).names)
    apps.argo_cd_applies(APPSET, names, fleet)
    return names


@pytest.fixture
def world() -> tuple[MemoryFleet, AppsBaseline, ParamsService]:
    fleet, apps = _fleet(), AppsBaseline()
    service = _service(fleet, apps)
    assert len(_applied(service, apps, fleet, PROD)) == 6
    return fleet, apps, service


def test_a_selector_edit_that_selects_nothing_is_held(world: tuple[MemoryFleet, AppsBaseline, ParamsService]) -> None:
    _, apps, service = world
    with pytest.raises(MassDropRefused, match="would drop 6 of the 6 clusters"):
        _ask(service, {"labelSelector": {"matchLabels": {"env": "prdo"}}})
    assert len(apps.targets(APPSET)) == 6  # Argo CD got no answer: every Application stays


def test_a_min_version_edit_is_held(world: tuple[MemoryFleet, AppsBaseline, ParamsService]) -> None:
    _, _, service = world
    with pytest.raises(MassDropRefused, match="would drop 6 of the 6"):
        _ask(service, {**PROD, "minVersion": "1.31"})  # the fleet runs 1.30


def test_a_restarted_process_and_the_other_replica_start_from_the_applications(
    world: tuple[MemoryFleet, AppsBaseline, ParamsService],
) -> None:
    fleet, apps, _ = world
    for name in ("c0", "c1", "c2", "c3"):
        fleet.remove(name)
    for fresh in (_service(fleet, apps), _service(fleet, apps)):  # restart; the second replica
        with pytest.raises(MassDropRefused, match="would drop 4 of the 6"):
            _ask(fresh, PROD)


def test_mass_secret_deletion_is_held_and_restoring_the_secrets_releases_it(
    world: tuple[MemoryFleet, AppsBaseline, ParamsService],
) -> None:
    fleet, apps, _ = world
    reported = Reported()
    service = _service(fleet, apps, reported)
    deleted = [c for c in fleet.clusters() if c.name != "c5"]
    for c in deleted:
        fleet.remove(c.name)
    for _ in range(3):
        with pytest.raises(MassDropRefused):
            _ask(service, PROD)
    assert len(reported.holds) == 3 and reported.holds[0].total == 6  # every refusal goes to the reporter
    assert {h.project for h in reported.holds} == {""}  # the template names no plain project
    for c in deleted:
        fleet.put(c)
    assert len(_applied(service, apps, fleet, PROD)) == 6
    assert reported.releases == [APPSET]


def test_decommission_then_delete_is_an_explicit_departure(
    world: tuple[MemoryFleet, AppsBaseline, ParamsService],
) -> None:
    fleet, apps, service = world
    for name in ("c0", "c1", "c2", "c3", "c4"):
        fleet.update(name, phase=Phase.DECOMMISSIONING)
    assert len(_applied(service, apps, fleet, PROD)) == 6  # kept while Decommissioning
    for name in ("c0", "c1", "c2", "c3", "c4"):
        fleet.remove(name)
    assert _applied(service, apps, fleet, PROD) == ["c5"]  # the Applications go, as asked


def test_the_application_remembers_a_decommission_after_the_generator_forgot_it() -> None:
    """After a restart the deleted Secret is unknown, but the Application records the phase it had."""
    fleet, apps = _fleet(2), AppsBaseline()
    apps.argo_cd_applies(APPSET, ["c0", "c1"], fleet, departing=True)
    restarted = MemoryFleet([cluster("c1")])  # c0's Secret went while this process was down
    assert sorted(_ask(_service(restarted, apps), PROD).names) == ["c1"]


def test_a_decommissioned_cluster_that_is_still_registered_is_lost_unless_dropped_on_request() -> None:
    targets = [Target("https://a"), Target("https://b")]
    a, b = ("https://a", "a"), ("https://b", "b")
    base = {"answered": {b}, "known": {a, b}, "decommissioning": {a}}
    assert lost(targets, Fleet(**base, departed=set())) == [Target("https://a")]
    assert lost(targets, Fleet(**base, departed=set(), drop_decommissioned=True)) == []
    # the departing record only counts once the Secret is gone
    departing = Target("https://a", departing=True)
    assert lost([departing], Fleet(**base, departed=set())) == [departing]


def test_a_loss_is_judged_once_it_has_not_changed_for_the_settle_window() -> None:
    now = [100.0]
    reported = Reported()
    guard = MassDropGuard(50, settle=5, reporter=reported, clock=lambda: now[0])
    targets = [Target(f"https://c{i}", f"c{i}") for i in range(10)]
    known = {(t.server, t.name) for t in targets}

    def fleet(gone: int) -> Fleet:
        left = {(t.server, t.name) for t in targets[gone:]}
        return Fleet(answered=left, known=left, decommissioning=set(), departed=set())

    def check(gone: int) -> None:
        guard.check(APPSET, targets, fleet(gone), allow=False)

    with pytest.raises(DropSettling, match="would lose 1 of the 10 clusters"):
        check(1)  # the first Secret of a batch
    assert reported.rechecks == [(APPSET, 5.5)]
    now[0] = 103.0
    with pytest.raises(DropSettling):
        check(6)  # the batch grew: the wait starts again
    now[0] = 107.0
    with pytest.raises(DropSettling):
        check(6)
    now[0] = 108.0
    with pytest.raises(MassDropRefused, match="6 of the 10"):  # the batch as a whole
        check(6)
    assert len(reported.holds) == 1  # settling is no refusal
    now[0] = 120.0
    with pytest.raises(DropSettling):
        check(2)  # being undone one by one: not judged on the way (20% would be given)
    now[0] = 121.0
    guard.check(APPSET, targets, Fleet(known, known, set(), set()), allow=False)  # whole again: released
    assert reported.releases == [APPSET]  # the end of the hold (also its first answer)
    with pytest.raises(DropSettling):
        check(2)
    now[0] = 126.0
    check(2)  # 20%, unchanged for 5 s: given
    check(2)  # again, while Argo CD deletes those Applications: no new wait


def test_allow_mass_drop_and_a_disabled_guard_answer_at_once() -> None:
    targets = [Target("https://a")]
    nothing = Fleet(set(), set(), set(), set())
    MassDropGuard(50, settle=5).check(APPSET, targets, nothing, allow=True)
    MassDropGuard(100, settle=5).check(APPSET, targets, nothing, allow=False)


def test_a_message_names_ten_clusters_and_counts_the_rest() -> None:
    targets = [Target(f"https://c{i:02}", f"c{i:02}") for i in range(30)]
    guard = MassDropGuard(50, settle=0)
    with pytest.raises(MassDropRefused) as refused:
        guard.check(APPSET, targets, Fleet(set(), set(), set(), set()), allow=False)
    assert "c00, c01, c02, c03, c04, c05, c06, c07, c08, c09 and 20 more." in refused.value.message
    assert isinstance(refused.value, Unavailable) and refused.value.status == 503


def test_relabelling_three_of_four_clusters_behind_duplicates_of_their_servers_is_held() -> None:
    """The attack: Secrets of other names take the servers of three of four clusters (a tenant's Cluster API
    kubeconfigs did, before servers became identities) and the three are relabelled out of the selector.
    Every server is still in the answer, so a guard keyed by server gave it (200) and Argo CD deleted the
    three clusters' Applications; keyed by server and name, three of four are lost and it is held (503)."""
    fleet, apps = _fleet(4), AppsBaseline()
    service = _service(fleet, apps)
    assert _applied(service, apps, fleet, PROD) == ["c0", "c1", "c2", "c3"]
    for victim in ("c0", "c1", "c2"):
        server = fleet.update(victim, labels={"env": "elsewhere"}).server
        fleet.put(cluster(f"{victim}.tenant", server=server, secret_name=f"capi.tenant.{victim}"))
    with pytest.raises(MassDropRefused, match="would drop 3 of the 4 clusters its Applications target"):
        _ask(_service(fleet, apps), PROD)
    assert {t.name for t in apps.targets(APPSET)} == {"c0", "c1", "c2", "c3"}  # no Application deleted
    # and a name-less target (its Application names a server no cluster is known by) is matched by server
    assert (
        lost(
            [Target("https://c0.example.test:6443")],
            Fleet({("https://c0.example.test:6443", "x")}, set(), set(), set()),
        )
        == []
    )


def test_a_drop_is_given_only_after_a_fresh_read_agrees(
    world: tuple[MemoryFleet, AppsBaseline, ParamsService],
) -> None:
    """Argo CD created c6's Application a moment ago and the cache has not seen it: read afresh, the drop
    of three is four of seven, which is held; the cache's view (three of six) would have let c6 go too."""
    fleet, apps, service = world
    fleet.put(cluster("c6"))
    apps.unseen = frozenset({Target("https://c6.example.test:6443", "c6")})
    for name in ("c0", "c1", "c2"):
        fleet.remove(name)
    fleet.update("c6", labels={"env": "staging"})  # and c6 is relabelled in the same batch
    with pytest.raises(MassDropRefused, match="would drop 4 of the 7 clusters"):
        _ask(service, PROD)
    apps.unseen = frozenset()
    assert _applied(service, apps, fleet, PROD) == ["c3", "c4", "c5"]  # three of six, read afresh: given


def test_a_drop_that_cannot_be_confirmed_is_not_given(world: tuple[MemoryFleet, AppsBaseline, ParamsService]) -> None:
    fleet, apps, service = world
    fleet.remove("c0")
    apps.unreadable = LifecycleError("list Applications in argocd: HTTP 403: forbidden")
    with pytest.raises(Unavailable, match="cannot read the Applications of ApplicationSet 'guestbook' to confirm"):
        _ask(service, PROD)
    apps.unreadable = None
    assert "c0" not in _ask(service, PROD).names


def test_a_hold_carries_the_appsets_project_for_the_receivers_routes(
    world: tuple[MemoryFleet, AppsBaseline, ParamsService],
) -> None:
    fleet, apps, _ = world
    apps.project = "team-a"
    reported = Reported()
    service = _service(fleet, apps, reported)
    for c in list(fleet.clusters())[:5]:
        fleet.remove(c.name)
    with pytest.raises(MassDropRefused):
        _ask(service, PROD)
    assert [(h.appset, h.project) for h in reported.holds] == [(APPSET, "team-a")]
