"""Which apiVersion an object gets: static table, the cluster's API list, and upgrades."""

from __future__ import annotations

import pytest

from argocd_lifecycle.deprecations.knowledge import builtin
from argocd_lifecycle.plugin.rewrite.target import Action, Target, api_priority, decide

FC = "flowcontrol.apiserver.k8s.io/"


def to(target: Target, api: str, kind: str) -> tuple[Action, str | None]:
    d = decide(builtin(), target, api, kind)
    return d.action, d.to


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ((1, 25), (Action.KEEP, None)),  # still served: nothing to do
        ((1, 26), (Action.CONVERT, FC + "v1beta3")),  # v1 not there yet
        ((1, 28), (Action.CONVERT, FC + "v1beta3")),
        ((1, 29), (Action.CONVERT, FC + "v1")),  # GA first
        ((1, 36), (Action.CONVERT, FC + "v1")),
    ],
)
def test_flowcontrol_replacement_depends_on_the_target(
    version: tuple[int, int], expected: tuple[Action, str | None]
) -> None:
    assert to(Target.of(version), FC + "v1beta1", "PriorityLevelConfiguration") == expected


def test_served_objects_and_unknown_kinds_are_kept() -> None:
    assert to(Target.of((1, 30)), "apps/v1", "Deployment") == (Action.KEEP, None)
    assert to(Target.of((1, 30)), "example.test/v1", "Widget") == (Action.KEEP, None)
    assert to(Target.of((1, 21)), "batch/v1beta1", "CronJob") == (Action.KEEP, None)


def test_removed_without_replacement() -> None:
    assert to(Target.of((1, 25)), "policy/v1beta1", "PodSecurityPolicy") == (Action.REMOVED, None)
    # extensions PSP had a replacement, itself gone by 1.25
    assert to(Target.of((1, 20)), "extensions/v1beta1", "PodSecurityPolicy") == (Action.CONVERT, "policy/v1beta1")
    assert to(Target.of((1, 25)), "extensions/v1beta1", "PodSecurityPolicy") == (Action.REMOVED, None)


def test_upgrading_picks_a_version_both_releases_serve() -> None:
    # 1.25 -> 1.26: v1beta1 goes away at 1.26; v1beta3 is not served by 1.25, v1beta2 is served by both
    upgrading = Target.of((1, 25), upgrade_to=(1, 26))
    assert to(upgrading, FC + "v1beta1", "FlowSchema") == (Action.CONVERT, FC + "v1beta2")
    # HPA v2beta1 on 1.22 upgrading to 1.25: autoscaling/v2 needs 1.23, v2beta2 is served by both
    assert to(Target.of((1, 22), upgrade_to=(1, 25)), "autoscaling/v2beta1", "HorizontalPodAutoscaler") == (
        Action.CONVERT,
        "autoscaling/v2beta2",
    )
    # without the upgrade the same objects stay
    assert to(Target.of((1, 25)), FC + "v1beta1", "FlowSchema") == (Action.KEEP, None)
    assert upgrading.describe() == "1.25 and 1.26 (upgrading)"


def test_an_upgrade_target_that_is_not_newer_is_ignored() -> None:
    assert Target.of((1, 30), upgrade_to=(1, 29)).upgrade_to is None


API_LIST = ",".join(
    [
        "v1",
        "v1/ConfigMap",
        "networking.k8s.io/v1",
        "networking.k8s.io/v1/Ingress",
        "networking.k8s.io/v1beta1",
        "networking.k8s.io/v1beta1/IPAddress",
        "networking.k8s.io/v1beta1/ServiceCIDR",
        "example.test/v1/Widget",
    ]
).split(",")


def test_the_cluster_api_list_wins_over_the_table() -> None:
    listed = Target.of((1, 31), api_versions=API_LIST)
    # networking v1alpha1 IPAddress: removed at 1.31; its v1beta1 replacement is off by default, but this
    # cluster serves it (it is in the list)
    assert to(listed, "networking.k8s.io/v1alpha1", "IPAddress") == (Action.CONVERT, "networking.k8s.io/v1beta1")
    # the table alone would not pick a beta that is off by default
    assert to(Target.of((1, 31)), "networking.k8s.io/v1alpha1", "IPAddress") == (Action.REMOVED, None)
    # Ingress v1beta1 is not in the list: v1 is
    assert to(listed, "networking.k8s.io/v1beta1", "Ingress") == (Action.CONVERT, "networking.k8s.io/v1")


def test_kinds_the_list_cannot_contain_fall_back_to_the_table() -> None:
    # reviews are create-only: never in KUBE_API_VERSIONS, so absence proves nothing
    listed = Target.of((1, 21), api_versions=API_LIST)
    assert to(listed, "authorization.k8s.io/v1beta1", "SubjectAccessReview") == (Action.KEEP, None)


def test_listed_deprecated_versions_stay_and_unlisted_ones_without_replacement_are_reported() -> None:
    listed = Target.of((1, 34), api_versions=[*API_LIST, "resource.k8s.io/v1beta1/ResourceClaim"])
    assert to(listed, "resource.k8s.io/v1beta1", "ResourceClaim") == (Action.KEEP, None)
    # not listed (DRA off on this cluster), not removed by the table, no listed replacement
    assert to(listed, "resource.k8s.io/v1beta1", "ResourceSlice") == (Action.UNSERVED, None)


def test_only_the_api_list_is_known() -> None:
    listed = Target.of(None, api_versions=API_LIST)
    assert listed.known and listed.describe() == "the cluster's API list"
    assert to(listed, "extensions/v1beta1", "Ingress") == (Action.CONVERT, "networking.k8s.io/v1")
    assert to(listed, "policy/v1beta1", "PodSecurityPolicy") == (Action.REMOVED, None)
    assert not Target.of(None).known
    assert to(Target.of(None), "extensions/v1beta1", "Ingress") == (Action.KEEP, None)


def test_rewrite_deprecated_moves_served_objects_when_asked() -> None:
    kind = "HorizontalPodAutoscaler"
    assert to(Target.of((1, 24)), "autoscaling/v2beta2", kind) == (Action.KEEP, None)
    assert to(Target.of((1, 24), rewrite_deprecated=True), "autoscaling/v2beta2", kind) == (
        Action.CONVERT,
        "autoscaling/v2",
    )
    # deprecated but no served replacement yet: stays
    assert to(Target.of((1, 22), rewrite_deprecated=True), "autoscaling/v2beta1", kind) == (
        Action.CONVERT,
        "autoscaling/v2beta2",
    )


def test_api_priority_orders_like_kubernetes() -> None:
    order = ["v2", "v1beta3", "v1alpha2", "v1", "v2beta1", "v1alpha1", "v1beta1"]
    ranked = sorted(order, key=lambda v: api_priority(f"g/{v}"))
    assert ranked == ["v1alpha1", "v1alpha2", "v1beta1", "v1beta3", "v2beta1", "v1", "v2"]
    assert api_priority("v1") > api_priority("apps/v1beta2") > api_priority("x/v1alpha1")
    assert api_priority("x/notaversion") < api_priority("x/v1alpha1")
