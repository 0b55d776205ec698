"""The Argo CD cluster Secret a CAPI Cluster should have, and the merge patch that gets it there."""

from __future__ import annotations

import base64
import json
from dataclasses import replace

import pytest

from argocd_lifecycle.cluster_secrets import parse_secret
from argocd_lifecycle.generators.capi.intent import intent
from argocd_lifecycle.generators.capi.kubeconfig import Endpoint, parse_kubeconfig
from argocd_lifecycle.generators.capi.objects import CapiCluster, ClusterKey, InvalidCapiObject, parse_cluster
from argocd_lifecycle.generators.capi.registration import (
    cluster_name,
    copied_labels,
    desired,
    is_ours,
    manifest,
    patch,
    secret_name,
    source_of,
)
from tests.harness.capi import fixture, kubeconfig, kubeconfig_secret
from tests.harness.pki import CertificateAuthority

CA = CertificateAuthority("workload-1-ca")
ADMIN = CA.client("kubernetes-admin", "system:masters")
ALLOW = ("env", "team.example.com/*")


def cluster() -> CapiCluster:
    return parse_cluster(fixture("cluster-topology"))


def endpoint(server: str = "https://127.0.0.1:6443") -> Endpoint:
    config = kubeconfig("workload-1", server, CA.cert_pem, cert_pem=ADMIN.cert_pem, key_pem=ADMIN.key_pem)
    return parse_kubeconfig(kubeconfig_secret(fixture("cluster-topology"), config), where="test")  # type: ignore[arg-type]


def body(c: CapiCluster | None = None, e: Endpoint | None = None) -> dict[str, object]:
    c = c or cluster()
    return dict(manifest(desired(c, e or endpoint(), intent(c, None, []), ALLOW), "argocd"))


def test_names_are_one_to_one_with_the_capi_cluster() -> None:
    key = ClusterKey("capi-clusters", "workload-1")
    assert secret_name(key) == "capi.capi-clusters.workload-1"
    assert cluster_name(key) == "workload-1.capi-clusters"
    # the same cluster name in two namespaces, and names that would collide when joined with "-"
    assert secret_name(ClusterKey("a-b", "c")) != secret_name(ClusterKey("a", "b-c"))
    assert cluster_name(ClusterKey("team-a", "prod")) != cluster_name(ClusterKey("team-b", "prod"))


def test_the_secret_is_an_argo_cd_cluster_secret_the_inventory_accepts() -> None:
    doc = body()
    parsed = parse_secret(doc)  # type: ignore[arg-type]
    assert (parsed.secret_name, parsed.namespace) == ("capi.capi-clusters.workload-1", "argocd")
    assert (parsed.name, parsed.server) == ("workload-1.capi-clusters", "https://127.0.0.1:6443")
    assert parsed.credentials.ca_pem == CA.cert_pem and parsed.credentials.key_pem == ADMIN.key_pem
    assert parsed.labels == {
        "argocd.argoproj.io/secret-type": "cluster",
        "argocd-lifecycle.io/managed-by": "cluster-api",
        "env": "sandbox",
        "team.example.com/owner": "payments",
    }
    assert parsed.annotations == {
        "argocd-lifecycle.io/capi-cluster": "capi-clusters/workload-1",
        "argocd-lifecycle.io/capi-cluster-uid": "6f1d2c4e-0000-4000-8000-000000000001",
    }
    assert is_ours(parsed.labels) and source_of(parsed.annotations) == ClusterKey("capi-clusters", "workload-1")
    config = json.loads(base64.b64decode(doc["data"]["config"]))  # type: ignore[index]
    assert set(config) == {"tlsClientConfig"} and config["tlsClientConfig"]["insecure"] is False


def test_only_allowed_labels_are_copied_and_never_reserved_ones() -> None:
    c = cluster()
    assert copied_labels(c, ALLOW) == {"env": "sandbox", "team.example.com/owner": "payments"}
    assert copied_labels(c, ()) == {}
    # even "*" cannot copy Argo CD's secret-type or our own keys from a CAPI Cluster
    labels = {**c.labels, "argocd-lifecycle.io/managed-by": "someone"}
    assert copied_labels(replace(c, labels=labels), ("*",)) == {
        "env": "sandbox", "region": "eu-west", "team.example.com/owner": "payments",
    }  # fmt: skip


def test_intent_becomes_annotations() -> None:
    c = replace(cluster(), topology_version="v1.35.0")
    want = desired(c, endpoint(), intent(c, None, []), ALLOW)
    assert want.annotations["argocd-lifecycle.io/upgrade-to"] == "1.35"
    assert want.annotations["argocd-lifecycle.io/decommission"] is None
    gone = replace(c, deleting=True)
    want = desired(gone, endpoint(), intent(gone, None, []), ALLOW)
    assert want.annotations["argocd-lifecycle.io/decommission"] == "true"
    assert want.annotations["argocd-lifecycle.io/upgrade-to"] is None


def test_nothing_to_patch_when_the_secret_is_as_desired() -> None:
    c = cluster()
    want = desired(c, endpoint(), intent(c, None, []), ALLOW)
    have = parse_secret(manifest(want, "argocd"))
    assert patch(want, have) is None


def test_a_patch_changes_only_what_differs_and_keeps_foreign_annotations() -> None:
    c = cluster()
    have = parse_secret(manifest(desired(c, endpoint(), intent(c, None, []), ALLOW), "argocd"))
    have = replace(have, annotations={**have.annotations, "argocd-lifecycle.io/phase": "Ready", "note": "mine"},
                   labels={**have.labels, "argocd.argoproj.io/auto-label-cluster-info": "true"})  # fmt: skip
    raised = replace(c, topology_version="v1.35.0", labels={**c.labels, "env": "prod"})
    body = patch(desired(raised, endpoint(), intent(raised, None, []), ALLOW), have, resource_version="42")
    assert body == {
        "metadata": {
            "labels": {"env": "prod"},
            "annotations": {"argocd-lifecycle.io/upgrade-to": "1.35"},
            "resourceVersion": "42",
        }
    }


def test_a_label_the_cluster_dropped_is_removed_from_the_secret() -> None:
    c = cluster()
    have = parse_secret(manifest(desired(c, endpoint(), intent(c, None, []), ALLOW), "argocd"))
    dropped = replace(c, labels={k: v for k, v in c.labels.items() if k != "env"})
    body = patch(desired(dropped, endpoint(), intent(dropped, None, []), ALLOW), have)
    assert body == {"metadata": {"labels": {"env": None}}}


def test_new_credentials_or_server_rewrite_the_data() -> None:
    c = cluster()
    have = parse_secret(manifest(desired(c, endpoint(), intent(c, None, []), ALLOW), "argocd"))
    moved = patch(desired(c, endpoint("https://10.0.0.7:6443"), intent(c, None, []), ALLOW), have)
    assert moved is not None
    assert base64.b64decode(moved["data"]["server"]) == b"https://10.0.0.7:6443"
    assert set(moved["data"]) == {"name", "server", "config"} and "labels" not in moved["metadata"]


def test_without_a_kubeconfig_the_data_is_left_alone() -> None:
    c = replace(cluster(), topology_version="v1.35.0")
    have = parse_secret(manifest(desired(cluster(), endpoint(), intent(cluster(), None, []), ALLOW), "argocd"))
    body = patch(desired(c, None, intent(c, None, []), ALLOW), have)
    assert body == {"metadata": {"annotations": {"argocd-lifecycle.io/upgrade-to": "1.35"}}}


def test_a_secret_that_no_longer_parses_is_rewritten_whole() -> None:
    c = cluster()
    body = patch(desired(c, endpoint(), intent(c, None, []), ALLOW), None)
    assert body is not None and set(body["data"]) == {"name", "server", "config"}


def test_a_kubeconfig_the_inventory_would_refuse_never_becomes_a_secret() -> None:
    c = cluster()
    broken = replace(endpoint(), config={"tlsClientConfig": {"insecure": False, "caData": "bm90IGEgY2VydA=="}})
    with pytest.raises(Exception, match="not a PEM certificate"):
        manifest(desired(c, broken, intent(c, None, []), ALLOW), "argocd")


def test_a_name_too_long_for_a_secret_is_refused_before_any_write() -> None:
    long_one = replace(cluster(), key=ClusterKey("capi-clusters", "w" * 250))
    with pytest.raises(
        InvalidCapiObject, match=r"the name is too long for an Argo CD cluster Secret \(269 > 253 characters\)$"
    ):
        desired(long_one, endpoint(), intent(long_one, None, []), ALLOW)


def test_data_the_charts_admission_policy_would_refuse_is_refused_before_any_write() -> None:
    """A token may hold the letters of "password": the policy refuses such a config wherever the word is, so
    the generator says so on the CAPI Cluster instead of retrying a refused write for ever."""
    config = kubeconfig("workload-1", "https://127.0.0.1:6443", CA.cert_pem, token="abc.PassWord.def")
    e = parse_kubeconfig(kubeconfig_secret(fixture("cluster-topology"), config), where="test")  # type: ignore[arg-type]
    c = cluster()
    with pytest.raises(
        InvalidCapiObject, match="basic-auth settings, a backslash or a non-ASCII byte, which the chart"
    ):
        desired(c, e, intent(c, None, []), ALLOW)
