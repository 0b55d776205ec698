"""Which cluster is meant, and which Applications deploy to it, as Argo CD matches them."""

from __future__ import annotations

import pytest

from argocd_lifecycle.generators.preflight.apps import PreflightInputError, read_application
from argocd_lifecycle.generators.preflight.clusters import ClusterRef, deploys_to, resolve

from .helpers import application, cluster_secret

SECRETS = [cluster_secret(), cluster_secret(name="staging", server="https://staging.example.test:6443")]


def test_a_cluster_is_found_by_name_or_by_server() -> None:
    assert resolve("prod", SECRETS).server == "https://prod.example.test:6443"
    assert resolve("https://staging.example.test:6443/", SECRETS).name == "staging"
    assert resolve("prod", SECRETS).secret_name == "cluster-prod"


IN_CLUSTER_SERVER = "https://kubernetes.default.svc"


def test_the_management_cluster_needs_no_secret() -> None:
    assert resolve("in-cluster", SECRETS) == ClusterRef("in-cluster", IN_CLUSTER_SERVER)
    assert resolve(IN_CLUSTER_SERVER, []).name == "in-cluster"
    assert resolve(IN_CLUSTER_SERVER + "/", []).name == "in-cluster"


def test_unknown_and_ambiguous_clusters_are_errors_naming_what_exists() -> None:
    with pytest.raises(
        PreflightInputError, match=r"'nope' is not named by any cluster Secret \(known clusters: prod, staging\)"
    ):
        resolve("nope", SECRETS)
    twins = [cluster_secret(), cluster_secret(name="prod", server="https://other.example.test")]
    with pytest.raises(PreflightInputError, match="named by several cluster Secrets"):
        resolve("prod", twins)


def test_destinations_match_by_server_first_then_by_name() -> None:
    prod = resolve("prod", SECRETS)
    assert deploys_to(read_application(application("a", []), "x"), prod)
    assert deploys_to(read_application(application("a", [], dest_name="prod"), "x"), prod)
    assert not deploys_to(read_application(application("a", [], dest_name="staging"), "x"), prod)
    assert not deploys_to(read_application(application("a", [], server="https://staging.example.test:6443"), "x"), prod)
