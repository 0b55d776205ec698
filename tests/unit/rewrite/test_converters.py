"""Field-level conversions, one behaviour per test; inputs are never mutated."""

from __future__ import annotations

from typing import Any

import pytest

from argocd_lifecycle.plugin.validate import validate_objects
from tests.unit.rewrite.helpers import convert, without_own_annotations

TEMPLATE = {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}


def obj(api: str, kind: str, name: str = "x", **fields: Any) -> dict[str, Any]:
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": "ns"}, **fields}


def valid(o: Any, version: tuple[int, int]) -> None:
    report = validate_objects([("obj", o)], version)
    assert report.checked == 1 and report.problems == []


# --- apps -----------------------------------------------------------------------------------------


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


# --- ingress --------------------------------------------------------------------------------------


def test_ingress_ports_and_paths() -> None:
    src = obj(
        "networking.k8s.io/v1beta1",
        "Ingress",
        metadata={"name": "x", "annotations": {"kubernetes.io/ingress.class": "nginx"}},
        spec={
            "ingressClassName": "nginx",
            "backend": {"resource": {"apiGroup": "g", "kind": "K", "name": "n"}},
            "rules": [
                {"http": {"paths": [{"pathType": None, "backend": {"serviceName": "s", "servicePort": "8080"}}]}},
                {"host": "no-http.example.test"},
            ],
        },
    )
    out, rw = convert(src, (1, 22))
    spec = out["spec"]
    assert spec["defaultBackend"] == {"resource": {"apiGroup": "g", "kind": "K", "name": "n"}}
    path = spec["rules"][0]["http"]["paths"][0]
    # digits-only string ports become numbers: as a name they would be invalid
    assert path == {
        "pathType": "ImplementationSpecific",
        "backend": {"service": {"name": "s", "port": {"number": 8080}}},
    }
    assert spec["rules"][1] == {"host": "no-http.example.test"}
    assert rw.infos and not any("ingress.class" in i for i in rw.infos)  # class set explicitly: no advice


# --- autoscaling ----------------------------------------------------------------------------------


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


# --- CustomResourceDefinition ---------------------------------------------------------------------


def crd_v1beta1(**spec: Any) -> dict[str, Any]:
    base = {"group": "example.test", "names": {"kind": "Widget", "plural": "widgets", "singular": "widget"}}
    return {
        "apiVersion": "apiextensions.k8s.io/v1beta1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.test"},
        "spec": {**base, **spec},
    }


def test_crd_single_version_with_top_level_fields() -> None:
    src = crd_v1beta1(
        version="v1",
        validation={
            "openAPIV3Schema": {"properties": {"spec": {"properties": {"size": {"type": "integer"}, "anything": {}}}}}
        },
        subresources={"status": {}},
        additionalPrinterColumns=[{"name": "Size", "type": "integer", "JSONPath": ".spec.size"}],
        preserveUnknownFields=False,
    )
    out, rw = convert(src, (1, 22))
    spec = out["spec"]
    assert spec["scope"] == "Namespaced"
    assert "version" not in spec and "validation" not in spec and "preserveUnknownFields" not in spec
    (version,) = spec["versions"]
    assert version["name"] == "v1" and version["served"] and version["storage"]
    assert version["subresources"] == {"status": {}}
    assert version["additionalPrinterColumns"] == [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}]
    schema = version["schema"]["openAPIV3Schema"]
    assert schema["type"] == "object" and schema["properties"]["spec"]["type"] == "object"
    assert schema["properties"]["spec"]["properties"]["anything"] == {"x-kubernetes-preserve-unknown-fields": True}
    assert "x-kubernetes-preserve-unknown-fields" not in schema  # pruning was already on
    assert any("keep any value" in w for w in rw.warnings)
    valid(out, (1, 25))


def test_crd_default_preserve_unknown_fields_is_kept_per_object_node() -> None:
    src = crd_v1beta1(
        scope="Cluster",
        versions=[
            {"name": "v1", "served": True, "storage": True},
            {
                "name": "v2",
                "served": True,
                "storage": False,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"a": {"type": "string"}}}},
            },
        ],
    )
    out, rw = convert(src, (1, 22))
    v1, v2 = out["spec"]["versions"]
    assert v1["schema"] == {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    assert v2["schema"]["openAPIV3Schema"] == {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "x-kubernetes-preserve-unknown-fields": True,
    }
    assert out["spec"]["scope"] == "Cluster"
    assert any("preserveUnknownFields" in w for w in rw.warnings)
    valid(out, (1, 25))


def test_crd_webhook_conversion_layout() -> None:
    client = {"service": {"name": "conv", "namespace": "ns", "path": "/convert"}}
    src = crd_v1beta1(
        versions=[{"name": "v1", "served": True, "storage": True}],
        conversion={"strategy": "Webhook", "webhookClientConfig": client},
        preserveUnknownFields=False,
    )
    out, rw = convert(src, (1, 22))
    assert out["spec"]["conversion"] == {
        "strategy": "Webhook",
        "webhook": {"clientConfig": client, "conversionReviewVersions": ["v1beta1"]},
    }
    assert any("conversionReviewVersions pinned" in w for w in rw.warnings)
    none = crd_v1beta1(version="v1", conversion={"strategy": "None", "webhookClientConfig": client})
    assert convert(none, (1, 22))[0]["spec"]["conversion"] == {"strategy": "None"}
    valid(out, (1, 25))


def test_crd_schema_junctors_and_metadata() -> None:
    schema = {
        "type": "object",
        "properties": {
            "metadata": {
                "type": "object",
                "properties": {"name": {"type": "string", "maxLength": 20}, "labels": {"type": "object"}},
            },
            "spec": {
                "type": "object",
                "anyOf": [{"type": "object", "description": "either", "required": ["a"]}, {"required": ["b"]}],
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            },
        },
    }
    out, rw = convert(
        crd_v1beta1(version="v1", validation={"openAPIV3Schema": schema}, preserveUnknownFields=False), (1, 22)
    )
    new = out["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    assert new["properties"]["metadata"] == {
        "type": "object",
        "properties": {"name": {"type": "string", "maxLength": 20}},
    }
    assert new["properties"]["spec"]["anyOf"] == [{"required": ["a"]}, {"required": ["b"]}]
    assert any("only name/generateName" in w for w in rw.warnings)
    valid(out, (1, 25))


def test_crd_schema_that_cannot_be_made_structural_is_refused() -> None:
    schema = {"type": "object", "properties": {"spec": {"type": "object", "oneOf": [{"default": {}}]}}}
    _, rw = convert(crd_v1beta1(version="v1", validation={"openAPIV3Schema": schema}), (1, 22))
    assert "oneOf[0].default inside allOf/anyOf/oneOf/not" in rw.problems[0]


def test_crd_without_any_version_is_refused() -> None:
    _, rw = convert(crd_v1beta1(), (1, 22))
    assert "neither spec.version nor spec.versions" in rw.problems[0]


# --- admission webhooks ---------------------------------------------------------------------------


def webhooks(*hooks: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1beta1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "w"},
        "webhooks": list(hooks),
    }


CLIENT = {"service": {"name": "s", "namespace": "ns"}}


def test_webhooks_pin_v1beta1_defaults_and_assume_no_side_effects() -> None:
    explicit = {
        "name": "b.example.test",
        "clientConfig": CLIENT,
        "failurePolicy": "Fail",
        "matchPolicy": "Equivalent",
        "timeoutSeconds": 5,
        "sideEffects": "NoneOnDryRun",
        "admissionReviewVersions": ["v1"],
    }
    out, rw = convert(webhooks({"name": "a.example.test", "clientConfig": CLIENT}, explicit), (1, 22))
    first, second = out["webhooks"]
    assert (
        first["failurePolicy"],
        first["matchPolicy"],
        first["timeoutSeconds"],
        first["admissionReviewVersions"],
        first["sideEffects"],
    ) == ("Ignore", "Exact", 30, ["v1beta1"], "None")
    assert second == explicit
    assert sum("a.example.test" in w for w in rw.warnings) == 2 and not any("b.example.test" in w for w in rw.warnings)
    valid(out, (1, 25))


def test_webhooks_with_side_effects_or_duplicate_names_are_refused() -> None:
    _, rw = convert(webhooks({"name": "a", "clientConfig": CLIENT, "sideEffects": "Some"}), (1, 22))
    assert "sideEffects Some is not allowed in v1" in rw.problems[0]
    _, rw = convert(webhooks({"name": "a", "clientConfig": CLIENT}, {"name": "a", "clientConfig": CLIENT}), (1, 22))
    assert "webhook names must be unique in v1: a repeated" in rw.problems[0]


# --- smaller kinds --------------------------------------------------------------------------------


def test_pdb_selector_rules() -> None:
    for spec in ({"minAvailable": 1}, {"minAvailable": 1, "selector": {"matchLabels": {"a": "b"}}}):
        src = obj("policy/v1beta1", "PodDisruptionBudget", spec=spec)
        out, rw = convert(src, (1, 25))
        assert out["spec"] is src["spec"] and rw.warnings == []


def test_endpoint_slice_topology() -> None:
    src = obj(
        "discovery.k8s.io/v1beta1",
        "EndpointSlice",
        addressType="IPv4",
        endpoints=[
            {
                "addresses": ["10.0.0.1"],
                "topology": {"topology.kubernetes.io/zone": "z1", "kubernetes.io/hostname": "n1", "rack": "r1"},
            },
            {"addresses": ["10.0.0.2"], "nodeName": "n2", "topology": {"kubernetes.io/hostname": "n9"}},
            {"addresses": ["10.0.0.3"]},
        ],
    )
    out, rw = convert(src, (1, 25))
    a, b, c = out["endpoints"]
    assert a == {"addresses": ["10.0.0.1"], "zone": "z1", "nodeName": "n1"}
    assert b == {"addresses": ["10.0.0.2"], "nodeName": "n2"}
    assert c == {"addresses": ["10.0.0.3"]}
    assert any("rack" in w and "kubernetes.io/hostname=n9 (nodeName is n2)" in w for w in rw.warnings)
    valid(out, (1, 25))


FC = "flowcontrol.apiserver.k8s.io/"


@pytest.mark.parametrize(("version", "api"), [((1, 27), FC + "v1beta3"), ((1, 32), FC + "v1")])
def test_flowcontrol_chain_renames_assured_shares(version: tuple[int, int], api: str) -> None:
    src = obj(
        FC + "v1beta1",
        "PriorityLevelConfiguration",
        spec={"type": "Limited", "limited": {"assuredConcurrencyShares": 20, "limitResponse": {"type": "Reject"}}},
    )
    out, rw = convert(src, version)
    assert out["apiVersion"] == api
    assert out["spec"]["limited"] == {"nominalConcurrencyShares": 20, "limitResponse": {"type": "Reject"}}
    assert rw.warnings == []
    valid(out, version)


def test_flowcontrol_zero_shares_keep_their_v1beta3_meaning() -> None:
    src = obj(
        FC + "v1beta3",
        "PriorityLevelConfiguration",
        spec={"type": "Limited", "limited": {"nominalConcurrencyShares": 0, "limitResponse": {"type": "Reject"}}},
    )
    out, rw = convert(src, (1, 32))
    assert out["spec"]["limited"]["nominalConcurrencyShares"] == 30
    assert any("meant the default 30" in w for w in rw.warnings)


def test_csr_needs_a_usable_signer_and_gets_old_usages() -> None:
    src = obj("certificates.k8s.io/v1beta1", "CertificateSigningRequest", spec={"request": "cmVx"})
    _, rw = convert(src, (1, 22))
    assert "spec.signerName is unset" in rw.problems[0]
    legacy = obj(
        "certificates.k8s.io/v1beta1",
        "CertificateSigningRequest",
        spec={"request": "cmVx", "signerName": "kubernetes.io/legacy-unknown"},
    )
    assert "legacy-unknown" in convert(legacy, (1, 22))[1].problems[0]
    ok = obj(
        "certificates.k8s.io/v1beta1",
        "CertificateSigningRequest",
        spec={"request": "cmVx", "signerName": "example.test/signer"},
    )
    out, rw = convert(ok, (1, 22))
    assert out["spec"]["usages"] == ["digital signature", "key encipherment"]
    assert any("usages pinned" in w for w in rw.warnings)


def test_rbac_v1alpha1_subjects() -> None:
    src = obj(
        "rbac.authorization.k8s.io/v1alpha1",
        "RoleBinding",
        roleRef={"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
        subjects=[
            {"kind": "User", "apiVersion": "rbac.authorization.k8s.io/v1alpha1", "name": "jane"},
            {"kind": "ServiceAccount", "apiVersion": "v1", "name": "sa", "namespace": "ns"},
            {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "devs"},
        ],
    )
    out, _ = convert(src, (1, 22))
    assert out["subjects"] == [
        {"kind": "User", "name": "jane", "apiGroup": "rbac.authorization.k8s.io"},
        {"kind": "ServiceAccount", "name": "sa", "namespace": "ns", "apiGroup": ""},
        {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "devs"},
    ]
    valid(out, (1, 25))


def test_event_is_renamed_with_warnings_not_synthesised() -> None:
    src = obj("events.k8s.io/v1beta1", "Event", type="Sad", reason="R")
    out, rw = convert(src, (1, 25))
    assert without_own_annotations(out) == {**src, "apiVersion": "events.k8s.io/v1"}
    assert any("type 'Sad' is refused" in w for w in rw.warnings)
    assert any("action, reportingController, reportingInstance" in w for w in rw.warnings)
