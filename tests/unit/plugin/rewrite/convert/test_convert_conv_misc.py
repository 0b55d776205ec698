"""Smaller kinds (plugin/rewrite/convert/conv_misc.py): PDB, EndpointSlice, flow control, CSR, RBAC, Event."""

from __future__ import annotations

import pytest

from tests.unit.plugin.rewrite.helpers import convert, obj, valid, without_own_annotations


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
