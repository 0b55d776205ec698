"""The rollout input is hostile: each bound and type is checked at the edge, one message naming the field."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from argocd_lifecycle.generators.rollout.errors import RolloutInputError
from argocd_lifecycle.generators.rollout.spec import Budget, parse_rollout
from argocd_lifecycle.generators.rollout.state import Control, RolloutStateError, control_of, decode
from argocd_lifecycle.generators.rollout.windows import WINDOWS_ANNOTATION, cluster_windows, parse_windows

W = "input.parameters.rollout"
ISSUE = {
    "revision": "v2.3.0",
    "waves": [
        {"name": "canary", "labelSelector": {"matchLabels": {"tier": "canary"}}},
        {"name": "eu", "labelSelector": {"matchLabels": {"region": "eu"}}},
        {"name": "rest"},
    ],
    "bakeTime": "10m",
    "maxUnavailable": 1,
}


def test_the_issue_input_parses() -> None:
    s = parse_rollout(ISSUE)
    assert s.revision == "v2.3.0" and [w.name for w in s.waves] == ["canary", "eu", "rest"]
    assert s.bake_seconds == 600 and s.budget == Budget(count=1) and not s.rollback


def test_strings_from_a_matrix_generator_parse() -> None:
    s = parse_rollout({**ISSUE, "maxUnavailable": "2", "rollback": "true"})
    assert s.budget == Budget(count=2) and s.rollback


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"revision": ""}, f"{W}.revision"),
        ({"revision": "a b"}, f"{W}.revision"),
        ({"revision": "x" * 256}, f"{W}.revision"),
        ({"revision": "v1\n"}, f"{W}.revision"),
        ({"revision": 3}, f"{W}.revision"),
        ({"waves": []}, f"{W}.waves"),
        ({"waves": "canary"}, f"{W}.waves"),
        ({"waves": [{"name": f"w{i}"} for i in range(33)]}, f"{W}.waves"),
        ({"waves": [{"name": "a"}, {"name": "a"}]}, f"{W}.waves[1].name"),
        ({"waves": [{"name": "Not_DNS"}]}, f"{W}.waves[0].name"),
        ({"waves": [{"name": "a", "extra": 1}]}, f"{W}.waves[0]"),
        ({"waves": ["a"]}, f"{W}.waves[0]"),
        (
            {"waves": [{"name": "a", "labelSelector": {"matchLabels": {"k": 1}}}]},
            f"{W}.waves[0].labelSelector.matchLabels.k",
        ),
        (
            {"waves": [{"name": "a", "labelSelector": {"matchExpressions": [{"key": "k", "operator": "Near"}]}}]},
            "operator",
        ),
        ({"bakeTime": "forever"}, f"{W}.bakeTime"),
        ({"bakeTime": "31d"}, f"{W}.bakeTime"),
        ({"bakeTime": 600}, f"{W}.bakeTime"),
        ({"maxUnavailable": 0}, f"{W}.maxUnavailable"),
        ({"maxUnavailable": "0%"}, f"{W}.maxUnavailable"),
        ({"maxUnavailable": "101%"}, f"{W}.maxUnavailable"),
        ({"maxUnavailable": -1}, f"{W}.maxUnavailable"),
        ({"maxUnavailable": True}, f"{W}.maxUnavailable"),
        ({"maxUnavailable": "1.5"}, f"{W}.maxUnavailable"),
        ({"rollback": "yes"}, f"{W}.rollback"),
        ({"waveLabel": "a b"}, f"{W}.waveLabel"),
        ({"unknown": 1}, f"{W}: unknown field 'unknown'"),
        ({"windows": "nightly"}, f"{W}.windows"),
    ],
)
def test_a_bad_input_is_one_message_naming_the_field(change: dict[str, object], field: str) -> None:
    with pytest.raises(RolloutInputError) as err:
        parse_rollout({**ISSUE, **change})
    assert field in err.value.message


def test_not_an_object_is_refused() -> None:
    with pytest.raises(RolloutInputError, match="expected an object"):
        parse_rollout(["v2"])


@pytest.mark.parametrize(
    ("window", "field"),
    [
        ({"schedule": "61 * * * *", "duration": "1h"}, "schedule"),
        ({"schedule": "0 0 30 2 *", "duration": "1h"}, "schedule"),
        ({"schedule": "* " * 60, "duration": "1h"}, "schedule"),
        ({"schedule": "0 22 * * *", "duration": "8d"}, "duration"),
        ({"schedule": "0 22 * * *", "duration": "0s"}, "duration"),
        ({"schedule": "0 22 * * *"}, "duration"),
        ({"schedule": "0 22 * * *", "duration": "1h", "timeZone": "../../etc/passwd"}, "timeZone"),
        ({"schedule": "0 22 * * *", "duration": "1h", "timeZone": "/etc/localtime"}, "timeZone"),
        ({"schedule": "0 22 * * *", "duration": "1h", "timeZone": "Mars/Olympus"}, "timeZone"),
        ({"schedule": "0 22 * * *", "duration": "1h", "kind": "maybe"}, "kind"),
        ({"schedule": "0 22 * * *", "duration": "1h", "applications": ["*"]}, "unknown field"),
    ],
)
def test_a_bad_window_is_refused(window: dict[str, object], field: str) -> None:
    with pytest.raises(RolloutInputError) as err:
        parse_windows([window], "w")
    assert field in err.value.message


def test_too_many_windows_are_refused() -> None:
    with pytest.raises(RolloutInputError, match="at most 16"):
        parse_windows([{"schedule": "0 22 * * *", "duration": "1h"}] * 17, "w")


def test_a_cluster_window_annotation_is_bounded() -> None:
    with pytest.raises(RolloutInputError, match="longer than"):
        cluster_windows({WINDOWS_ANNOTATION: " " * 5000})


def test_a_cluster_window_annotation_nested_too_deeply_is_one_error() -> None:
    # 4096 "[" fit the bound and made json.loads raise RecursionError, which escaped the plan as a 500
    with pytest.raises(RolloutInputError, match="not a JSON list of windows"):
        cluster_windows({WINDOWS_ANNOTATION: "[" * 4096})


def test_a_cluster_window_annotation_parses() -> None:
    windows = cluster_windows({WINDOWS_ANNOTATION: json.dumps([{"schedule": "0 22 * * *", "duration": "2h"}])})
    assert windows is not None and windows.open_at(datetime(2026, 1, 1, 23, tzinfo=UTC))
    assert cluster_windows({}) is None


GOOD_STATE = {
    "v": 1, "revision": "v2", "previous": "", "status": "Rolling", "wave": 0, "since": "2026-01-01T00:00:00Z",
    "bakedSince": "", "given": [], "acknowledged": [], "reason": "", "history": [], "refused": "",
}  # fmt: skip


def test_the_decoded_state_of_a_good_annotation() -> None:
    assert decode(json.dumps(GOOD_STATE)).revision == "v2"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[]",
        "x" * (256 * 1024 + 1),
        json.dumps({"v": 2}),
        json.dumps({"v": 1, "revision": "v2"}),
        json.dumps({**GOOD_STATE, "status": "Sleeping"}),
        json.dumps({**GOOD_STATE, "wave": -1}),
        json.dumps({**GOOD_STATE, "wave": True}),
        json.dumps({**GOOD_STATE, "since": "yesterday"}),
        json.dumps({**GOOD_STATE, "given": [1]}),
        json.dumps({**GOOD_STATE, "given": "c1"}),
        json.dumps({**GOOD_STATE, "history": ["a"] * 17}),
        json.dumps({**GOOD_STATE, "reason": "x" * 2000}),
        "[" * 100_000,
        '{"v":1,"given":' + "[" * 50_000,
    ],
)
def test_a_state_annotation_that_does_not_decode_is_one_error(text: str) -> None:
    with pytest.raises(RolloutStateError) as err:
        decode(text)
    assert "argocd-lifecycle.io/rollout" in err.value.message


@pytest.mark.parametrize(
    ("text", "control"),
    [("pause", Control.PAUSE), (" Resume ", Control.RESUME), ("abort", Control.ABORT), ("", Control.NONE),
     (None, Control.NONE), ("rm -rf", Control.NONE)],
)  # fmt: skip
def test_the_control_annotation(text: str | None, control: Control) -> None:
    assert control_of(text) is control
