"""CustomResourceDefinition v1beta1 -> v1 (plugin/rewrite/convert/conv_crd.py); inputs are never mutated."""

from __future__ import annotations

from typing import Any

from tests.unit.plugin.rewrite.helpers import convert, valid


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


def test_a_protected_group_gets_the_approval_annotation_v1_requires() -> None:
    src = crd_v1beta1(version="v1alpha1")
    src["spec"]["group"] = "certmanager.k8s.io"
    src["metadata"] = {"name": "widgets.certmanager.k8s.io", "annotations": {"team": "x"}}
    out, rw = convert(src, (1, 22))
    annotations = out["metadata"]["annotations"]
    assert annotations["api-approved.kubernetes.io"].startswith("unapproved, ") and annotations["team"] == "x"
    assert any("certmanager.k8s.io is a protected group" in w for w in rw.warnings)
    valid(out, (1, 22))
    # a recorded approval (a URL, or a reason of its own) is kept, and not warned about
    for value in ("https://github.com/kubernetes/enhancements/pull/1111", "unapproved, testing only"):
        src["metadata"]["annotations"] = {"api-approved.kubernetes.io": value}
        out, rw = convert(src, (1, 22))
        assert out["metadata"]["annotations"]["api-approved.kubernetes.io"] == value
        assert not any("protected group" in w for w in rw.warnings)
    src["metadata"]["annotations"] = {"api-approved.kubernetes.io": "yes please"}
    out, rw = convert(src, (1, 22))
    assert out["metadata"]["annotations"]["api-approved.kubernetes.io"].startswith("unapproved, ")
    assert any("it held 'yes please'" in w for w in rw.warnings)


def test_other_groups_get_no_approval_annotation() -> None:
    out, _ = convert(crd_v1beta1(version="v1"), (1, 22))
    assert "api-approved.kubernetes.io" not in (out["metadata"].get("annotations") or {})
