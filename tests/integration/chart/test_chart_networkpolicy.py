"""NetworkPolicies, on by default: the generator admits only Argo CD's ApplicationSet controller, the
receiver only Argo CD's notifications controller and our generator; both admit the metrics scrapers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.e2e.e2e_harness import paths
from tests.integration.chart.chartkit import find, one, render, render_error

pytestmark = pytest.mark.upstream

SCRAPER = {"namespaceSelector": {}, "podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}}}
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
                            "namespaceLabels": {"kubernetes.io/metadata.name": "monitoring"},
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
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}},
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
