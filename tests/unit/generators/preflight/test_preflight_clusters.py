"""Which cluster is meant, and which Applications deploy to it, as Argo CD matches them."""

from __future__ import annotations

import base64
import json

import pytest

from argocd_lifecycle.cluster_secrets import scan_cluster_secrets
from argocd_lifecycle.generators.preflight.apps import PreflightInputError, read_application
from argocd_lifecycle.generators.preflight.clusters import ClusterRef, deploys_to, resolve

from .helpers import application, cluster_secret, secret_object

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


def _bad_ca(name: str = "prod", server: str = "https://prod.example.test:6443") -> dict:
    obj = secret_object(name, server, annotations={"argocd-lifecycle.io/kubernetes-version": "1.29.3"})
    obj["data"]["config"] = base64.b64encode(json.dumps({"tlsClientConfig": {"caData": "\u00e9"}}).encode()).decode()
    return obj


def test_a_secret_whose_credentials_do_not_parse_is_matched_by_name_and_server() -> None:
    """Issue 24: preflight answered "not named by any cluster Secret" for a Secret it had skipped for caData."""
    parsed, skipped = scan_cluster_secrets([(_bad_ca(), "Secret argocd/cluster-prod")])
    assert parsed == []
    for wanted in ("prod", "https://prod.example.test:6443"):
        ref = resolve(wanted, parsed, skipped)
        assert (ref.name, ref.server, ref.secret_name) == ("prod", "https://prod.example.test:6443", "cluster-prod")
        assert ref.annotations["argocd-lifecycle.io/kubernetes-version"] == "1.29.3"
        assert ref.note == (
            "matched by name and server only, its credentials were not read: "
            "Secret argocd/cluster-prod: config.tlsClientConfig.caData is not base64"
        )
    assert resolve("staging", SECRETS, skipped).note == ""


def test_a_skipped_secret_counts_for_ambiguity_and_one_without_a_name_is_hinted() -> None:
    _, skipped = scan_cluster_secrets([(_bad_ca(), "a")])
    with pytest.raises(PreflightInputError, match="named by several cluster Secrets: cluster-prod, cluster-prod"):
        resolve("prod", SECRETS, skipped)
    nameless = secret_object("lost")
    del nameless["data"]["server"]
    _, skipped = scan_cluster_secrets([(nameless, "b")])
    with pytest.raises(PreflightInputError, match=r"1 cluster Secret\(s\) skipped without a readable name and server"):
        resolve("lost", SECRETS, skipped)
