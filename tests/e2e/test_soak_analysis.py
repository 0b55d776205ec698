"""The soak's counting, on messages made up here (no platform): what makes an outage episode, which
episode an alert belongs to, and which deletions the model permits."""

from __future__ import annotations

from typing import Any

from argocd_lifecycle.times import format_rfc3339
from tests.e2e.soak_analysis import outage_episodes
from tests.e2e.soak_model import AWAY, OWN, TENANT, Model
from tests.harness.sink import Message

WALL = 1_800_000_000.0  # Unix time at monotonic 0, for these messages
SERVERS = {"https://c1": "c1"}


def lifecycle(at: float, reason: str, *, since: float | None = None) -> Message:
    event = {"reason": reason, "cluster": "c1", "since": format_rfc3339(WALL + (at if since is None else since))}
    return Message("/lifecycle", {}, {"event": event}, at)


def alert(at: float, trigger: str, title: str = "") -> Message:
    body: dict[str, Any] = {"cluster": "https://c1", "title": title or trigger, "event": {"trigger": trigger}}
    return Message("/alerts", {}, body, at)


def storm(at: float, count: int) -> Message:
    return Message("/alerts", {}, {"kind": "collapsed", "cluster": "https://c1", "title": f"{count} collapsed"}, at)


def test_one_down_and_one_recovery_message_per_episode() -> None:
    messages = [lifecycle(1, "ClusterUnreachable"), storm(4, 1), lifecycle(9, "ClusterRecovered"),
                alert(10, "on-cluster-recovered"), lifecycle(30, "ClusterUnreachable"), storm(33, 1)]  # fmt: skip
    e = outage_episodes(messages, SERVERS, wall=WALL)
    assert (e.count, e.max_down, e.max_recovered, e.extra) == (2, 1, 1, [])


def test_an_alert_whose_lifecycle_message_comes_late_stays_in_its_own_episode() -> None:
    # the second transition happened at 20 but its lifecycle message reached the sink after the alert
    messages = [lifecycle(1, "ClusterUnreachable"), storm(4, 1), lifecycle(9, "ClusterRecovered"),
                storm(24, 1), lifecycle(27, "ClusterUnreachable", since=20)]  # fmt: skip
    e = outage_episodes(messages, SERVERS, wall=WALL)
    assert sorted(e.down.values()) == [1, 1]


def test_a_repeated_transition_does_not_hide_a_second_message_behind_a_new_episode() -> None:
    messages = [lifecycle(1, "ClusterUnreachable"), storm(4, 1), lifecycle(40, "ClusterUnreachable"), storm(70, 2)]
    e = outage_episodes(messages, SERVERS, wall=WALL)
    assert (e.count, e.repeated, e.max_down) == (1, 1, 2)
    assert len(e.extra) == 1 and "1 collapsed | 2 collapsed" in e.extra[0]


def test_a_change_that_is_no_transition_keeps_the_episode_open() -> None:
    messages = [lifecycle(1, "ClusterUnreachable"), lifecycle(5, "ClusterCredentialsRotated"),
                lifecycle(8, "ClusterUnreachable")]  # fmt: skip
    assert outage_episodes(messages, SERVERS, wall=WALL).count == 1


def test_the_model_permits_a_small_loss_and_holds_a_large_one() -> None:
    model = Model([f"c{i}" for i in range(10)])
    apps, own = set(model.clusters), model.inputs[OWN]
    model.env["c0"] = AWAY
    small = model.judge(OWN, apps)
    assert not small.held and own.permitted == {"c0": "drop within the threshold"}
    for name in ["c1", "c2", "c3", "c4", "c5"]:
        model.present.discard(name)
    large = model.judge(OWN, apps)
    assert large.held and model.holding and set(own.permitted) == {"c0"}  # a held loss permits no deletion
    own.allow = True
    model.judge(OWN, apps)
    assert {own.permitted[c] for c in ["c1", "c2", "c3", "c4", "c5"]} == {"allowMassDrop"}
    assert not model.holding


def test_each_applicationset_is_judged_on_its_own_input() -> None:
    model = Model([f"c{i}" for i in range(4)])
    apps = set(model.clusters)
    model.inputs[OWN].selector = frozenset({AWAY})  # the soak moved its own selector away: all lost, held
    assert model.judge(OWN, apps).held
    assert model.judge(TENANT, apps).lost == frozenset()  # the tenant's input never moved
    model.env["c0"] = AWAY  # a relabelled cluster is one the tenant loses, within the threshold
    assert model.judge(TENANT, apps).lost == {"c0"}
    assert model.inputs[TENANT].permitted == {"c0": "drop within the threshold"}
    model.depart("c1")  # an explicit departure lets every ApplicationSet go
    assert all(i.permitted["c1"] == "explicit departure" for i in model.inputs.values())


def test_an_explicit_departure_is_no_loss() -> None:
    model = Model([f"c{i}" for i in range(4)])
    for name in ["c0", "c1", "c2"]:
        model.present.discard(name)
        model.departed.add(name)
    verdict = model.judge(OWN, set(model.clusters))
    assert verdict.lost == frozenset() and not verdict.held
