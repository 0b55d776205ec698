"""RBAC: namespaced only, and exactly the verbs each component needs."""

from __future__ import annotations

from typing import Any

import pytest

from argocd_lifecycle.generators.fleet.argocd_params import ARGOCD_CMD_PARAMS_CM
from tests.integration.chart.chartkit import NAMESPACE, SCENARIOS, find, one, outside_the_release_namespace, render

pytestmark = pytest.mark.upstream

GENERATOR_RULES = [
    {"apiGroups": [""], "resources": ["secrets"], "verbs": ["get", "list", "watch", "patch"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "get", "patch"]},
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
    {
        "apiGroups": ["coordination.k8s.io"],
        "resources": ["leases"],
        "resourceNames": ["argocd-lifecycle-generator"],
        "verbs": ["get", "update"],
    },
    {"apiGroups": ["argoproj.io"], "resources": ["applicationsets"], "verbs": ["list", "watch", "patch"]},
    # generator.inCluster (on by default): argocd-cm's cluster.inClusterEnabled, read at start-up
    {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": ["argocd-cm"], "verbs": ["get"]},
    # Argo CD's ApplicationSet and Application namespaces, read at start-up unless every namespace is watched
    {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [ARGOCD_CMD_PARAMS_CM], "verbs": ["get"]},
    {"apiGroups": ["argoproj.io"], "resources": ["applications"], "verbs": ["get", "list", "watch", "patch"]},
]
CMD_PARAMS_RULE = GENERATOR_RULES[6]
TENANT_RULES = [
    {"apiGroups": ["argoproj.io"], "resources": ["applications"], "verbs": ["list", "watch"]},
    {"apiGroups": ["argoproj.io"], "resources": ["applicationsets"], "verbs": ["list", "watch", "patch"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "get", "patch"]},
]
TENANTS = "argocd-lifecycle-generator-tenants"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_nothing_cluster_wide(scenario: str) -> None:
    docs = render(values=(scenario,))
    kinds = {d["kind"] for d in docs}
    assert not kinds & {"ClusterRole", "ClusterRoleBinding"}
    for doc in find(docs, "Role") + find(docs, "RoleBinding"):
        assert doc["metadata"]["namespace"] == NAMESPACE or outside_the_release_namespace(doc, scenario)
    for role in find(docs, "Role"):
        for rule in role["rules"]:
            assert "*" not in rule["verbs"] and "*" not in rule["resources"], role["metadata"]["name"]
            assert "*" not in rule["apiGroups"]
            assert not {"escalate", "bind", "impersonate", "delete", "deletecollection"} & set(rule["verbs"])


def test_generator_verbs() -> None:
    role = one(render(), "Role", "argocd-lifecycle-generator")
    assert role["rules"] == GENERATOR_RULES


def test_generator_lease_name_is_the_one_the_generator_uses() -> None:
    from argocd_lifecycle.generators.fleet.leader import LeaseSettings

    assert GENERATOR_RULES[3]["resourceNames"] == [LeaseSettings(namespace="x", identity="y").name]


def test_secret_init_may_read_and_complete_only_the_generated_secrets() -> None:
    docs = render(values=("all-enabled-values.yaml",))
    role = one(docs, "Role", "argocd-lifecycle-secret-init")
    assert role["rules"] == [
        {
            "apiGroups": [""],
            "resources": ["secrets"],
            "resourceNames": ["argocd-lifecycle-generator-token", "argocd-lifecycle-receiver-inbound"],
            "verbs": ["get", "update"],
        },
        # RBAC cannot limit create to a name; the Role is a hook deleted once the hooks succeeded
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]},
    ]
    assert "hook-succeeded" in role["metadata"]["annotations"]["helm.sh/hook-delete-policy"]


def test_apply_job_may_touch_only_the_notifications_configmap() -> None:
    docs = render(values=("all-enabled-values.yaml",))
    roles = find(docs, "Role", "argocd-lifecycle-notifications-apply")
    assert sorted(r["metadata"]["namespace"] for r in roles) == [NAMESPACE, "team-a"]  # and a tenant's
    for role in roles:
        assert role["rules"] == [
            {
                "apiGroups": [""],
                "resources": ["configmaps"],
                "resourceNames": ["argocd-notifications-cm"],
                "verbs": ["create", "patch"],  # create: the apply of a missing one, by name too
            }
        ]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_bindings_point_at_our_roles_and_accounts(scenario: str) -> None:
    docs = render(values=(scenario,))
    roles = {d["metadata"]["name"] for d in find(docs, "Role")}
    accounts = {d["metadata"]["name"] for d in find(docs, "ServiceAccount")}
    pods: dict[str, Any] = {
        d["metadata"]["name"]: d["spec"]["template"]["spec"] for d in docs if d["kind"] in ("Deployment", "Job")
    }
    for binding in find(docs, "RoleBinding"):
        assert binding["roleRef"] == {
            "apiGroup": "rbac.authorization.k8s.io",
            "kind": "Role",
            "name": binding["metadata"]["name"],
        }
        assert binding["roleRef"]["name"] in roles
        (subject,) = binding["subjects"]
        assert subject == {"kind": "ServiceAccount", "name": subject["name"], "namespace": NAMESPACE}
        assert subject["name"] in accounts
    for name, spec in pods.items():
        assert spec["serviceAccountName"] in accounts, name
    # the receiver has an account but no Role: it never calls the API
    if "argocd-lifecycle-receiver" in accounts:
        assert "argocd-lifecycle-receiver" not in roles


def test_a_role_per_tenant_namespace_and_nothing_cluster_wide() -> None:
    docs = render(sets=(f"generator.applicationNamespaces={{team-a,team-b,{NAMESPACE}}}",))
    assert not {d["kind"] for d in docs} & {"ClusterRole", "ClusterRoleBinding"}
    roles = find(docs, "Role", TENANTS)
    assert sorted(r["metadata"]["namespace"] for r in roles) == ["team-a", "team-b"]  # Argo CD's has its own
    assert all(r["rules"] == TENANT_RULES for r in roles)
    for binding in find(docs, "RoleBinding", TENANTS):
        assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": TENANTS}
        assert binding["subjects"] == [
            {"kind": "ServiceAccount", "name": "argocd-lifecycle-generator", "namespace": NAMESPACE}
        ]
    args = one(docs, "Deployment", "argocd-lifecycle-generator")["spec"]["template"]["spec"]["containers"][0]["args"]
    flags = [args[i + 1] for i, a in enumerate(args) if a == "--application-namespace"]
    assert flags == ["team-a", "team-b", NAMESPACE]


def test_every_namespace_is_one_cluster_role_with_the_tenant_rules_only() -> None:
    docs = render(sets=("generator.applicationNamespaces={*}",))
    name = f"{TENANTS}.{NAMESPACE}"
    assert one(docs, "ClusterRole", name)["rules"] == TENANT_RULES  # never a Secret, never a Lease
    binding = one(docs, "ClusterRoleBinding", name)
    assert binding["roleRef"]["name"] == name and binding["subjects"][0]["namespace"] == NAMESPACE
    assert not find(docs, "Role", TENANTS)
    # every namespace watched: Argo CD's namespaces are covered whatever they are, so they are not read
    generator = one(docs, "Role", "argocd-lifecycle-generator")["rules"]
    assert generator == [r for r in GENERATOR_RULES if r is not CMD_PARAMS_RULE]
