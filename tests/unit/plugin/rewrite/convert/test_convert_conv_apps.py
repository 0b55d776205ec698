"""Workloads to apps/v1 (plugin/rewrite/convert/conv_apps.py), one behaviour per test; inputs are never mutated."""

from __future__ import annotations

from tests.unit.plugin.rewrite.helpers import TEMPLATE, convert, obj, valid


def test_extensions_deployment_pins_only_missing_rolling_update_fields() -> None:
    src = obj(
        "extensions/v1beta1",
        "Deployment",
        spec={
            "selector": {"matchLabels": {"app": "a"}},
            "strategy": {"rollingUpdate": {"maxSurge": "50%"}},
            "revisionHistoryLimit": 3,
            "progressDeadlineSeconds": 120,
            "template": TEMPLATE,
        },
    )
    out, rw = convert(src, (1, 16))
    assert out["apiVersion"] == "apps/v1"
    assert out["spec"]["strategy"] == {
        "type": "RollingUpdate",
        "rollingUpdate": {"maxSurge": "50%", "maxUnavailable": 1},
    }
    assert out["spec"]["selector"] == {"matchLabels": {"app": "a"}}
    # explicit values never change; nothing unbounded to warn about
    assert out["spec"]["revisionHistoryLimit"] == 3
    assert [w for w in rw.warnings if "defaults to" in w] == []
    assert any("maxUnavailable pinned" in w for w in rw.warnings)
    valid(out, (1, 25))


def test_recreate_strategy_needs_no_pin() -> None:
    src = obj("extensions/v1beta1", "Deployment", spec={"strategy": {"type": "Recreate"}, "template": TEMPLATE})
    out, _ = convert(src, (1, 16))
    assert out["spec"]["strategy"] == {"type": "Recreate"}


def test_workload_without_selector_or_labels_is_refused() -> None:
    src = obj("apps/v1beta1", "StatefulSet", spec={"template": {"spec": {"containers": []}}})
    out, rw = convert(src, (1, 16))
    assert out is src
    assert len(rw.problems) == 1
    assert "StatefulSet/ns/x" in rw.problems[0] and "no spec.selector and no template labels" in rw.problems[0]


def test_apps_v1beta2_gets_a_selector_only_when_missing() -> None:
    src = obj("apps/v1beta2", "ReplicaSet", spec={"template": TEMPLATE})
    out, rw = convert(src, (1, 16))
    assert out["spec"]["selector"] == {"matchLabels": {"app": "a"}}
    assert any("immutable" in w for w in rw.warnings)
    explicit = obj("apps/v1beta2", "DaemonSet", spec={"selector": {"matchLabels": {"x": "y"}}, "template": TEMPLATE})
    out, rw = convert(explicit, (1, 16))
    assert out["spec"] is explicit["spec"]  # shared, not copied
    assert rw.warnings == []


def test_statefulset_explicit_strategy_is_kept() -> None:
    src = obj(
        "apps/v1beta1",
        "StatefulSet",
        spec={
            "selector": {"matchLabels": {"app": "a"}},
            "updateStrategy": {"type": "RollingUpdate"},
            "template": TEMPLATE,
        },
    )
    out, rw = convert(src, (1, 16))
    assert out["spec"]["updateStrategy"] == {"type": "RollingUpdate"}
    assert rw.warnings == []
