"""NetworkPolicies, on by default: the generator admits only Argo CD's ApplicationSet controller, the
receiver only Argo CD's notifications controller and our generator; both admit the metrics scrapers of one
named namespace (the fleet page and cluster list share their port and need no token)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.harness import paths
from tests.integration.chart.chartkit import find, one, render, render_error
from tests.integration.chart.realapi import RealApi, status_message

pytestmark = pytest.mark.upstream

SCRAPER = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}},
    "podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}},
}
RECEIVER_ON = ("ha-redis-values.yaml",)


def peers(policy: dict[str, Any]) -> list[dict[str, Any]]:
    (rule,) = policy["spec"]["ingress"]
    assert rule["ports"] == [{"port": "http", "protocol": "TCP"}]  # the one port the Service exposes
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    return list(rule["from"])


def pod_labels(docs: list[dict[str, Any]], name: str) -> dict[str, str]:
    return dict(one(docs, "Deployment", name)["spec"]["template"]["metadata"]["labels"])


def test_on_by_default_for_every_service() -> None:
    assert [p["metadata"]["name"] for p in find(render(), "NetworkPolicy")] == ["argocd-lifecycle-generator"]
    docs = render(values=RECEIVER_ON)
    assert sorted(p["metadata"]["name"] for p in find(docs, "NetworkPolicy")) == [
        "argocd-lifecycle-generator",
        "argocd-lifecycle-receiver",
    ]


def test_the_generator_admits_the_applicationset_controller_and_scrapers_only() -> None:
    docs = render()
    policy = one(docs, "NetworkPolicy", "argocd-lifecycle-generator")
    assert (
        policy["spec"]["podSelector"]["matchLabels"].items() <= pod_labels(docs, "argocd-lifecycle-generator").items()
    )
    assert peers(policy) == [
        {"podSelector": {"matchLabels": {"app.kubernetes.io/name": "argocd-applicationset-controller"}}},
        SCRAPER,
    ]


def test_the_receiver_admits_the_notifications_controller_the_generator_and_scrapers_only() -> None:
    docs = render(values=RECEIVER_ON)
    policy = one(docs, "NetworkPolicy", "argocd-lifecycle-receiver")
    generator = one(docs, "Deployment", "argocd-lifecycle-generator")["spec"]["selector"]["matchLabels"]
    assert peers(policy) == [
        {"podSelector": {"matchLabels": {"app.kubernetes.io/name": "argocd-notifications-controller"}}},
        {"podSelector": {"matchLabels": generator}},
        SCRAPER,
    ]
    # the generator peer is the generator's pods and nobody else's
    assert generator.items() <= pod_labels(docs, "argocd-lifecycle-generator").items()
    assert not generator.items() <= pod_labels(docs, "argocd-lifecycle-receiver").items()
    without = one(render(values=RECEIVER_ON, sets=("generator.enabled=false",)), "NetworkPolicy")
    assert len(peers(without)) == 2


def argocd_pod_labels(manifest: str) -> dict[str, str]:
    path: Path = paths.argocd_source() / "manifests" / "base" / manifest
    return dict(yaml.safe_load(path.read_text())["spec"]["template"]["metadata"]["labels"])


@pytest.mark.parametrize(
    ("policy", "manifest"),
    [
        ("argocd-lifecycle-generator", "applicationset-controller/argocd-applicationset-controller-deployment.yaml"),
        ("argocd-lifecycle-receiver", "notification/argocd-notifications-controller-deployment.yaml"),
    ],
)
def test_the_default_selectors_match_argo_cds_own_pods(policy: str, manifest: str) -> None:
    # Argo CD's manifests (read from its Go module, v3.2.11) label the pods so; argo-helm's chart gives
    # them app.kubernetes.io/name: <nameOverride "argocd">-<component name>, the same values
    selector = peers(one(render(values=RECEIVER_ON), "NetworkPolicy", policy))[0]["podSelector"]["matchLabels"]
    assert selector.items() <= argocd_pod_labels(manifest).items()


def test_the_selectors_and_scrapers_are_overridable(tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(
        yaml.safe_dump(
            {
                "global": {
                    "networkPolicy": {
                        "metricsScrapers": {
                            "podLabels": {"app": "vmagent"},
                            "namespace": "observability",
                        }
                    }
                },
                "generator": {"networkPolicy": {"applicationSetControllerLabels": {"app": "appset"}}},
            }
        )
    )
    policy = one(render(values=(str(values),)), "NetworkPolicy")
    assert peers(policy) == [
        {"podSelector": {"matchLabels": {"app": "appset"}}},
        {
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "observability"}},
            "podSelector": {"matchLabels": {"app": "vmagent"}},
        },
    ]
    no_scrapers = one(render(sets=("global.networkPolicy.metricsScrapers.enabled=false",)), "NetworkPolicy")
    assert len(peers(no_scrapers)) == 1


def test_an_unset_selector_falls_back_to_argo_cds_labels_never_to_every_pod() -> None:
    # an empty podSelector would admit every pod of the namespace
    policy = one(render(sets=("generator.networkPolicy.applicationSetControllerLabels=null",)), "NetworkPolicy")
    assert all(p["podSelector"]["matchLabels"] for p in peers(policy))
    assert "applicationSetControllerLabels: Property name of" in render_error(
        sets=("generator.networkPolicy.applicationSetControllerLabels.bad key=x",)
    )


def test_off_when_asked() -> None:
    docs = render(
        values=RECEIVER_ON, sets=("generator.networkPolicy.enabled=false", "receiver.networkPolicy.enabled=false")
    )
    assert not find(docs, "NetworkPolicy")


@pytest.mark.parametrize(
    "unset", ["global.networkPolicy.metricsScrapers.namespace=", "global.networkPolicy.metricsScrapers.namespace=null"]
)
def test_scrapers_of_every_namespace_are_refused(unset: str) -> None:
    # `namespaceSelector: {}` admitted a pod labelled app.kubernetes.io/name=prometheus in any namespace,
    # a tenant's too, to the fleet page and the cluster list
    for values in ((), RECEIVER_ON):
        message = render_error(values=values, sets=(unset,))
        assert "global.networkPolicy.metricsScrapers.namespace is empty: name the namespace" in message
        assert "Traceback" not in message and "panic" not in message
    receiver_only = render_error(values=RECEIVER_ON, sets=(unset, "generator.networkPolicy.enabled=false"))
    assert "metricsScrapers.namespace is empty" in receiver_only
    # nothing to pin without a policy that admits scrapers
    assert not find(render(sets=(unset, "generator.networkPolicy.enabled=false")), "NetworkPolicy")
    assert find(render(sets=(unset, "global.networkPolicy.metricsScrapers.enabled=false")), "NetworkPolicy")
    assert (
        "does not match pattern"
        in render_error(sets=("global.networkPolicy.metricsScrapers.namespace=Not_A_Name",)).lower()
    )


def test_the_old_any_namespace_value_is_refused() -> None:
    message = render_error(sets=("global.networkPolicy.metricsScrapers.namespaceLabels.team=ops",))
    assert "namespaceLabels" in message


def test_a_tenant_cannot_give_its_namespace_the_scrapers_name(real_api: RealApi) -> None:
    """The peer selects the namespace by `kubernetes.io/metadata.name`, which the real API server sets to
    the namespace's own name on every write: a tenant namespace labelled `monitoring` stays itself."""
    namespaces = "/api/v1/namespaces"
    forged = {"metadata": {"name": "tenant-forger", "labels": {"kubernetes.io/metadata.name": "monitoring"}}}
    with real_api.cluster.http() as admin:
        created = admin.post(namespaces, json=forged)
        assert created.status_code == 201, status_message(created)
        assert created.json()["metadata"]["labels"]["kubernetes.io/metadata.name"] == "tenant-forger"
        patched = admin.patch(
            f"{namespaces}/tenant-forger", headers={"Content-Type": "application/merge-patch+json"},
            json={"metadata": {"labels": {"kubernetes.io/metadata.name": "monitoring"}}},
        )  # fmt: skip
        assert patched.status_code == 200, status_message(patched)
        assert patched.json()["metadata"]["labels"]["kubernetes.io/metadata.name"] == "tenant-forger"
        selected = admin.get(namespaces, params={"labelSelector": "kubernetes.io/metadata.name=monitoring"})
        assert [n["metadata"]["name"] for n in selected.json()["items"]] in ([], ["monitoring"])
