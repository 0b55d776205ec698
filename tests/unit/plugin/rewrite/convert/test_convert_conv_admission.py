"""Admission webhook configurations v1beta1 -> v1 (plugin/rewrite/convert/conv_admission.py)."""

from __future__ import annotations

from typing import Any

from tests.unit.plugin.rewrite.helpers import convert, valid


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
