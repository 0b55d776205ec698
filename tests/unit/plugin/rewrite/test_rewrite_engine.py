"""The engine: removed-API policies, provenance annotation, lists, users' rules, diagnostics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.deprecations.knowledge import knowledge_base
from argocd_lifecycle.plugin.rewrite.convert import registry
from argocd_lifecycle.plugin.rewrite.engine import DROPPED, Rewriter
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved, Policy
from argocd_lifecycle.plugin.rewrite.target import Target
from tests.unit.plugin.rewrite.helpers import convert, rewriter

PSP = {"apiVersion": "policy/v1beta1", "kind": "PodSecurityPolicy", "metadata": {"name": "restricted"}, "spec": {}}
CRON = {
    "apiVersion": "batch/v1beta1",
    "kind": "CronJob",
    "metadata": {"name": "c", "namespace": "ns"},
    "spec": {"schedule": "* * * * *"},
}


def test_fail_policy_names_object_and_remedy() -> None:
    out, rw = convert(PSP, (1, 25))
    assert out is PSP
    (problem,) = rw.problems
    assert problem.startswith("PodSecurityPolicy/restricted: policy/v1beta1 PodSecurityPolicy is removed in 1.25")
    assert "Pod Security Admission" in problem and "onRemoved (--on-removed) to drop or keep" in problem


def test_drop_and_keep_policies_warn() -> None:
    out, rw = convert(PSP, (1, 25), on_removed=OnRemoved.DROP)
    assert out is DROPPED and rw.dropped == 1 and rw.problems == []
    assert rw.warnings[0].startswith("PodSecurityPolicy/restricted: dropped:")
    out, rw = convert(PSP, (1, 25), on_removed=OnRemoved.KEEP)
    assert out is PSP and rw.problems == []
    assert "kept although" in rw.warnings[0] and "sync will fail" in rw.warnings[0]


def test_manual_migrations_follow_the_removed_policy() -> None:
    claim = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "ResourceClaim", "metadata": {"name": "gpu"}, "spec": {}}
    _, rw = convert(claim, (1, 34))
    assert "resource.k8s.io/v1 exists but needs a manual migration" in rw.problems[0]


def test_rewritten_objects_carry_their_origin_and_share_unchanged_parts() -> None:
    out, rw = convert(CRON, (1, 25))
    assert out["apiVersion"] == "batch/v1"
    assert out["metadata"]["annotations"] == {"argocd-lifecycle.io/rewritten-from": "batch/v1beta1"}
    assert out["spec"] is CRON["spec"]
    assert rw.converted == 1
    assert rw.infos == ["CronJob/ns/c: rewritten from batch/v1beta1 to batch/v1 for Kubernetes 1.25"]


def test_chains_record_the_first_api_version() -> None:
    src = {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1alpha1",
        "kind": "FlowSchema",
        "metadata": {"name": "f"},
        "spec": {},
    }
    out, _ = convert(src, (1, 33))
    assert out["apiVersion"] == "flowcontrol.apiserver.k8s.io/v1"
    assert (
        out["metadata"]["annotations"]["argocd-lifecycle.io/rewritten-from"] == "flowcontrol.apiserver.k8s.io/v1alpha1"
    )


def test_served_and_foreign_objects_are_returned_as_is() -> None:
    for obj in (
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
        {"apiVersion": "example.test/v1", "kind": "Widget", "metadata": {"name": "w"}},
        {"kind": "NoApiVersion"},
        ["not", "a", "mapping"],
        "scalar",
    ):
        rw = rewriter((1, 30))
        assert rw.rewrite(obj) is obj
        assert (rw.warnings, rw.infos, rw.problems) == ([], [], [])


def test_deprecated_but_served_objects_get_a_note() -> None:
    _, rw = convert(CRON, (1, 22))
    assert rw.infos == ["CronJob/ns/c: batch/v1beta1 is deprecated since 1.21, removal in 1.25; use batch/v1"]
    assert rw.warnings == []


def test_lists_convert_their_items_and_drop_removed_ones() -> None:
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    lst: dict[str, Any] = {"apiVersion": "batch/v1beta1", "kind": "CronJobList", "items": [CRON, PSP, other]}
    out, rw = convert(lst, (1, 25), on_removed=OnRemoved.DROP)
    assert (out["apiVersion"], out["kind"]) == ("v1", "List")
    assert [i["kind"] for i in out["items"]] == ["CronJob", "ConfigMap"]
    assert out["items"][1] is other
    assert any("items[1]" in w for w in rw.warnings)
    untouched = {"apiVersion": "v1", "kind": "List", "items": [other]}
    assert convert(untouched, (1, 25))[0] is untouched


def test_users_rules_convert_by_renaming(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(
        "apis:\n- {apiVersion: example.test/v1beta1, kind: Widget, deprecatedIn: '1.28', removedIn: '1.30',"
        " replacements: [{apiVersion: example.test/v1, since: '1.27'}]}\n"
    )
    rw = Rewriter(knowledge_base(rules), Target.of((1, 30)), Policy())
    widget = {"apiVersion": "example.test/v1beta1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}}
    out = rw.rewrite(widget, "widgets.yaml#0")
    assert out["apiVersion"] == "example.test/v1" and out["spec"] is widget["spec"]
    assert rw.infos[0].startswith("Widget/w (widgets.yaml#0): rewritten from example.test/v1beta1")


def test_cluster_without_the_api_and_without_a_replacement_warns() -> None:
    slice_ = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice", "metadata": {"name": "s"}}
    rw = Rewriter(knowledge_base(), Target.of((1, 34), api_versions=["v1/ConfigMap"]), Policy())
    assert rw.rewrite(slice_) is slice_
    assert "not in the cluster's API list" in rw.warnings[0]


def test_conversion_errors_are_collected_not_raised() -> None:
    rw = rewriter((1, 16))
    bad = {"apiVersion": "apps/v1beta1", "kind": "Deployment", "metadata": {"name": "a"}, "spec": {}}
    out = rw.rewrite_all([bad, bad], ["f.yaml#0", "f.yaml#1"])
    assert out == [bad, bad]
    assert [p.split(":")[0] for p in rw.problems] == ["Deployment/a (f.yaml#0)", "Deployment/a (f.yaml#1)"]


ODD = (5, "x", [1, "a"], None, True, [[]], {"rules": 5})


@pytest.mark.parametrize("value", ODD, ids=repr)
def test_odd_shapes_in_any_converted_object_never_raise(value: object) -> None:
    """Repositories hold anything: every registered conversion, fed fields of the wrong type, either
    converts or records a problem; it never raises (a traceback would reach Argo CD's UI)."""
    registry.load()
    for (old, kind), _ in sorted(registry.STEPS.items()):
        for target in ((1, 16), (1, 25), (1, 33)):
            rw = Rewriter(knowledge_base(), Target.of(target), Policy(OnRemoved.KEEP))
            for field in ("spec", "rules", "metadata", "webhooks", "subjects", "endpoints", "items"):
                obj = {"apiVersion": old, "kind": kind, "metadata": {"name": "o"}, field: value}
                rw.rewrite(obj, "f.yaml#0")
