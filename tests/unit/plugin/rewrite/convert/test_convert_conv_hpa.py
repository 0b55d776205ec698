"""HorizontalPodAutoscaler conversions and the opt-in autoscaling/v1 upgrade (plugin/rewrite/convert/conv_hpa.py)."""

from __future__ import annotations

from tests.unit.plugin.rewrite.helpers import convert, obj, valid


def test_hpa_v2beta1_metric_sources_without_fixture_coverage() -> None:
    src = obj(
        "autoscaling/v2beta1",
        "HorizontalPodAutoscaler",
        spec={
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"},
            "maxReplicas": 3,
            "metrics": [
                {
                    "type": "ContainerResource",
                    "containerResource": {"name": "cpu", "container": "app", "targetAverageUtilization": 50},
                },
                {
                    "type": "Object",
                    "object": {
                        "target": {"kind": "Service", "name": "s"},
                        "metricName": "m",
                        "averageValue": "5",
                        "selector": {"matchLabels": {"a": "b"}},
                    },
                },
                {"type": "External", "external": {"metricName": "q", "targetValue": "7"}},
            ],
        },
    )
    out, _ = convert(src, (1, 26))
    container, objm, ext = out["spec"]["metrics"]
    assert container["containerResource"] == {
        "name": "cpu",
        "container": "app",
        "target": {"type": "Utilization", "averageUtilization": 50},
    }
    assert objm["object"] == {
        "describedObject": {"kind": "Service", "name": "s"},
        "metric": {"name": "m", "selector": {"matchLabels": {"a": "b"}}},
        "target": {"type": "AverageValue", "averageValue": "5"},
    }
    assert ext["external"] == {"metric": {"name": "q"}, "target": {"type": "Value", "value": "7"}}
    valid(out, (1, 26))


def test_hpa_unknown_metric_type_is_copied_with_a_warning() -> None:
    src = obj("autoscaling/v2beta1", "HorizontalPodAutoscaler", spec={"metrics": [{"type": "Psychic"}]})
    out, rw = convert(src, (1, 25))
    assert out["spec"]["metrics"] == [{"type": "Psychic"}]
    assert any("unknown metric type 'Psychic'" in w for w in rw.warnings)


def test_hpa_v1_upgrade_is_opt_in_and_writes_the_implicit_cpu_target() -> None:
    src = obj(
        "autoscaling/v1",
        "HorizontalPodAutoscaler",
        spec={"scaleTargetRef": {"kind": "Deployment", "name": "d"}, "maxReplicas": 2},
    )
    out, _ = convert(src, (1, 30))
    assert out is src
    out, rw = convert(src, (1, 30), upgrade_hpa_v1=True)
    assert out["apiVersion"] == "autoscaling/v2"
    assert out["spec"]["metrics"] == [
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}}}
    ]
    assert any("implicit CPU utilization target of 80%" in w for w in rw.warnings)
    # autoscaling/v2 needs 1.23
    out, _ = convert(src, (1, 22), upgrade_hpa_v1=True)
    assert out is src


def test_hpa_v1_bad_annotation_json_is_an_error_naming_the_annotation() -> None:
    src = obj(
        "autoscaling/v1",
        "HorizontalPodAutoscaler",
        metadata={"name": "h", "annotations": {"autoscaling.alpha.kubernetes.io/metrics": "[{nope"}},
        spec={"maxReplicas": 2},
    )
    out, rw = convert(src, (1, 30), upgrade_hpa_v1=True)
    assert out is src
    assert "autoscaling.alpha.kubernetes.io/metrics is not valid JSON" in rw.problems[0]


def test_hpa_v1_behavior_keys_are_matched_case_insensitively() -> None:
    src = obj(
        "autoscaling/v1",
        "HorizontalPodAutoscaler",
        metadata={
            "name": "h",
            "annotations": {
                "autoscaling.alpha.kubernetes.io/behavior": (
                    '{"scaleup":{"SELECTPOLICY":"Max","Bogus":1},"ScaleDown":null}'
                ),
                "autoscaling.alpha.kubernetes.io/conditions": "[]",
            },
        },
        spec={"maxReplicas": 2, "targetCPUUtilizationPercentage": 60},
    )
    out, rw = convert(src, (1, 30), upgrade_hpa_v1=True)
    assert out["spec"]["behavior"] == {"scaleUp": {"selectPolicy": "Max"}}
    assert any("unknown field scaleUp.Bogus dropped" in w for w in rw.warnings)
    assert list(out["metadata"]["annotations"]) == ["argocd-lifecycle.io/rewritten-from"]
