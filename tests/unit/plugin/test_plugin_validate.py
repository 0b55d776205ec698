"""Strict validation with kubernetes-validate's bundled schemas."""

from __future__ import annotations

import kubernetes_validate
import pytest

from argocd_lifecycle.plugin.validate import bundled_releases, schema_release, validate_objects
from argocd_lifecycle.yaml import yamlio

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    # an unquoted timestamp, read as Kubernetes reads it: a string
    "metadata": {"name": "web", "creationTimestamp": yamlio.load("2024-01-01T00:00:00Z")},
    "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
    },
}


def test_releases_come_from_the_installed_package() -> None:
    releases = bundled_releases()
    assert releases[0] == (1, 25) and (1, 33) in releases
    assert schema_release((1, 16)) == (1, 25)  # older targets: the oldest bundled schema
    assert schema_release((1, 30)) == (1, 30)
    assert schema_release((1, 99)) == releases[-1]


def test_valid_object_passes_and_timestamps_count_as_strings() -> None:
    report = validate_objects([("Deployment/web", DEPLOYMENT)], (1, 33))
    assert (report.checked, report.problems, report.skipped) == (1, [], [])


def test_problems_name_object_field_and_schema() -> None:
    bad = {**DEPLOYMENT, "spec": {**DEPLOYMENT["spec"], "replicas": "three", "selectr": {}}}
    bad["spec"]["template"] = {"spec": {"containers": [{"name": "c", "imagee": "i"}]}}
    report = validate_objects([("Deployment/web (app.yaml#0)", bad)], (1, 33))
    assert (
        "Deployment/web (app.yaml#0): spec.replicas: 'three' is not of type 'integer', 'null'"
        " (Kubernetes 1.33 strict schema)" in report.problems
    )
    assert any(
        "spec.template.spec.containers[0]: Additional properties are not allowed ('imagee'" in p
        for p in report.problems
    )
    assert any("spec: Additional properties are not allowed ('selectr'" in p for p in report.problems)


def test_removed_versions_and_custom_resources_have_no_schema() -> None:
    widget = {"apiVersion": "example.test/v1", "kind": "Widget", "metadata": {"name": "w"}}
    cron = {"apiVersion": "batch/v1beta1", "kind": "CronJob", "metadata": {"name": "c"}}
    report = validate_objects([("Widget/w", widget), ("CronJob/c", cron)], (1, 30))
    assert report.skipped == ["Widget/w", "CronJob/c"] and report.checked == 0


@pytest.mark.parametrize("version", [(1, 25), (1, 33)])
def test_agrees_with_kubernetes_validate_itself(version: tuple[int, int]) -> None:
    """Our cached validators give the library's verdict."""
    bad = {**DEPLOYMENT, "metadata": {"name": "web"}, "spec": {"selector": {}, "template": {}, "bogus": 1}}
    good = {**DEPLOYMENT, "metadata": {"name": "web"}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(bad, f"{version[0]}.{version[1]}", strict=True)
    kubernetes_validate.validate(good, f"{version[0]}.{version[1]}", strict=True)
    assert validate_objects([("bad", bad)], version).problems
    assert not validate_objects([("good", good)], version).problems


def test_api_versions_at_a_release_look_like_kube_api_versions() -> None:
    from argocd_lifecycle.plugin.validate import api_versions_at

    listed = api_versions_at((1, 25))
    assert {"v1", "v1/ConfigMap", "policy/v1", "policy/v1/PodDisruptionBudget", "batch/v1/CronJob"} <= set(listed)
    assert "policy/v1beta1/PodDisruptionBudget" not in listed and "batch/v1beta1/CronJob" not in listed
    assert not any(e.endswith(("/DeleteOptions", "/WatchEvent", "List")) for e in listed)
    assert api_versions_at((1, 20)) == ()  # older than any bundled release: unknown


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "certificates.certmanager.k8s.io"},
    "spec": {
        "group": "certmanager.k8s.io",
        "names": {
            "kind": "Certificate",
            "plural": "certificates",
            "singular": "certificate",
            "listKind": "CertificateList",
        },
        "scope": "Namespaced",
        "versions": [
            {
                "name": "v1alpha1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"properties": {}}}}},
            }
        ],
    },
}


def test_crds_are_checked_as_the_api_server_does() -> None:
    report = validate_objects([("CustomResourceDefinition/certificates", CRD)], (1, 33))
    assert [p.split(": ", 2)[1] for p in report.problems] == [
        "metadata.annotations[api-approved.kubernetes.io]",
        "spec.versions[v1alpha1].schema.openAPIV3Schema.properties[spec].type",
    ]
    assert all(p.endswith("(kube-apiserver)") for p in report.problems)
    fixed = {**CRD, "metadata": {**CRD["metadata"], "annotations": {"api-approved.kubernetes.io": "unapproved, test"}}}
    fixed["spec"] = {
        **CRD["spec"],
        "versions": [{**CRD["spec"]["versions"][0], "schema": {"openAPIV3Schema": {"type": "object"}}}],
    }
    assert validate_objects([("crd", fixed)], (1, 33)).problems == []
