"""What a release serves, from the table alone (the upgrade preflight's questions)."""

from __future__ import annotations

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.deprecations.rules import Replacement
from argocd_lifecycle.deprecations.served import dropped_between, serves, verdict


def test_removed_deprecated_and_fine() -> None:
    kb = builtin()
    gone = verdict(kb, "policy/v1beta1", "PodDisruptionBudget", (1, 25))
    assert gone is not None and gone.removed and gone.converts and gone.advice == "policy/v1"
    early = verdict(kb, "policy/v1beta1", "PodDisruptionBudget", (1, 22))
    assert early is not None and not early.removed and early.deprecated
    assert verdict(kb, "policy/v1beta1", "PodDisruptionBudget", (1, 20)) is None  # not even deprecated yet
    assert verdict(kb, "apps/v1", "Deployment", (1, 40)) is None  # not in the table


def test_no_replacement_and_other_kinds_are_advice_not_conversions() -> None:
    kb = builtin()
    psp = verdict(kb, "policy/v1beta1", "PodSecurityPolicy", (1, 25))
    assert psp is not None and psp.served_replacement is None and not psp.converts and psp.advice == ""
    endpoints = verdict(kb, "v1", "Endpoints", (1, 33))
    assert endpoints is not None and not endpoints.removed and endpoints.advice == "discovery.k8s.io/v1 EndpointSlice"


def test_replacements_served_by_default_only() -> None:
    kb = builtin()
    # flowcontrol v1beta1 at 1.26: v1beta3 is served, v1 only from 1.29
    assert verdict(kb, "flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema", (1, 26)).advice.endswith("v1beta3")  # type: ignore[union-attr]
    assert verdict(kb, "flowcontrol.apiserver.k8s.io/v1beta1", "FlowSchema", (1, 29)).advice.endswith("/v1")  # type: ignore[union-attr]
    assert not serves(
        kb, Replacement("coordination.k8s.io/v1beta1", (1, 33), default_off=True), "LeaseCandidate", (1, 34)
    )
    # needs a human: a served replacement exists, the plugin does not convert
    claim = verdict(kb, "resource.k8s.io/v1beta1", "ResourceClaim", (1, 38))
    assert claim is not None and claim.served_replacement is not None and not claim.converts


def test_what_an_upgrade_drops() -> None:
    kb = builtin()
    dropped = dropped_between(kb, (1, 24), (1, 25))
    assert ("policy/v1beta1", "PodSecurityPolicy") in {(r.api_version, r.kind) for r in dropped}
    assert all(r.persisted and r.removed_in == (1, 25) for r in dropped)
    wider = dropped_between(kb, (1, 21), (1, 25))
    assert [r.removed_in for r in wider] == sorted(r.removed_in for r in wider)  # by release
    assert dropped_between(kb, (1, 25), (1, 25)) == []
