"""The knowledge base: the built-in table against upstream facts, users' rules, and pluto coverage."""

from __future__ import annotations

from pathlib import Path

import pytest

from argocd_lifecycle.deprecations.knowledge import builtin, knowledge_base, load_file
from argocd_lifecycle.deprecations.rules import BUILTIN, KnowledgeBase
from argocd_lifecycle.errors import ConfigError, UsageError


def test_table_holds_every_known_pair() -> None:
    kb = builtin()
    # 127 apiVersion+kind pairs deprecated or removed from 1.16 to 1.37 (*List kinds excluded)
    assert len(kb) == 127
    # 24 pairs are still served in 1.36, 4 of them deprecated only in 1.37
    served_1_36 = [r for r in kb.rules.values() if not r.removed_at((1, 36))]
    assert len(served_1_36) == 24
    assert sum(1 for r in served_1_36 if r.deprecated_in == (1, 37)) == 4
    # 15 pairs are never persisted, so never appear in manifests: Scale x3, DeploymentRollback x2,
    # TokenReview, 4 authorization reviews, AdmissionReview, Eviction, SelfSubjectReview x2, APIGroupDiscovery
    assert sum(1 for r in kb.rules.values() if not r.persisted) == 15
    assert kb.data_version
    assert all(r.origin == BUILTIN and r.sources for r in kb.rules.values())


@pytest.mark.parametrize(
    ("api", "kind", "deprecated", "removed", "replacements"),
    [
        # one row per removal era, values as upstream's lifecycle data gives them
        ("extensions/v1beta1", "Deployment", (1, 8), (1, 16), [("apps/v1", (1, 9))]),
        ("batch/v2alpha1", "CronJob", None, (1, 21), [("batch/v1beta1", (1, 8)), ("batch/v1", (1, 21))]),
        ("storage.k8s.io/v1beta1", "CSIDriver", (1, 19), (1, 22), [("storage.k8s.io/v1", (1, 18))]),
        ("apiregistration.k8s.io/v1beta1", "APIService", (1, 19), (1, 22), [("apiregistration.k8s.io/v1", (1, 10))]),
        ("policy/v1beta1", "PodSecurityPolicy", (1, 21), (1, 25), []),
        (
            "flowcontrol.apiserver.k8s.io/v1beta1",
            "PriorityLevelConfiguration",
            (1, 23),
            (1, 26),
            [
                ("flowcontrol.apiserver.k8s.io/v1beta2", (1, 23)),
                ("flowcontrol.apiserver.k8s.io/v1beta3", (1, 26)),
                ("flowcontrol.apiserver.k8s.io/v1", (1, 29)),
            ],
        ),
        (
            "admissionregistration.k8s.io/v1beta1",
            "ValidatingAdmissionPolicy",
            (1, 31),
            (1, 34),
            [("admissionregistration.k8s.io/v1", (1, 30))],
        ),
        (
            "storagemigration.k8s.io/v1alpha1",
            "StorageVersionMigration",
            (1, 33),
            (1, 35),
            [("storagemigration.k8s.io/v1beta1", (1, 35))],
        ),
        ("resource.k8s.io/v1beta1", "ResourceClaim", (1, 35), (1, 38), [("resource.k8s.io/v1", (1, 34))]),
        ("v1", "Endpoints", (1, 33), None, [("discovery.k8s.io/v1", (1, 21))]),
    ],
)
def test_spot_checks_against_upstream(
    api: str,
    kind: str,
    deprecated: tuple[int, int] | None,
    removed: tuple[int, int] | None,
    replacements: list[tuple[str, tuple[int, int]]],
) -> None:
    rule = builtin().lookup(api, kind)
    assert rule is not None
    assert (rule.deprecated_in, rule.removed_in) == (deprecated, removed)
    assert [(r.api_version, r.since) for r in rule.replacements] == replacements


def test_notes_carry_the_remedy_where_there_is_no_replacement() -> None:
    psp = builtin().lookup("policy/v1beta1", "PodSecurityPolicy")
    assert psp is not None and "pod-security.kubernetes.io" in psp.note
    endpoints = builtin().lookup("v1", "Endpoints")
    assert endpoints is not None and endpoints.replacements[0].kind == "EndpointSlice"


def test_lookup_is_exact_and_supports_wildcards(tmp_path: Path) -> None:
    rules = tmp_path / "extra.yaml"
    rules.write_text(
        "apis:\n"
        "- {apiVersion: example.test/v1alpha1, kind: '*', deprecatedIn: '1.20', removedIn: '1.30',"
        " replacements: [{apiVersion: example.test/v1, since: '1.20'}]}\n"
    )
    kb = knowledge_base(rules)
    assert kb.lookup("example.test/v1alpha1", "Widget") is not None
    assert kb.lookup("example.test/v1", "Widget") is None
    assert kb.lookup("apps/v1beta1", "Deployment") is not None
    assert kb.lookup("apps/v1beta1", "deployment") is None
    assert len(kb) == 128 and len(builtin()) == 127  # the built-in table is not modified


def test_pluto_shaped_files_are_accepted(tmp_path: Path) -> None:
    rules = tmp_path / "versions.yaml"
    rules.write_text(
        "deprecated-versions:\n"
        "- {version: cert-manager.io/v1alpha2, kind: Certificate, deprecated-in: v1.4.0, removed-in: v1.6.0,"
        " replacement-api: cert-manager.io/v1, component: cert-manager}\n"
        "- {version: example.test/v1beta1, kind: Widget, deprecated-in: v1.24.0, removed-in: v1.27.0,"
        " replacement-api: example.test/v1, replacement-available-in: v1.25.0, component: k8s}\n"
        "- {version: example.test/v1alpha1, kind: '', deprecated-in: v1.20.0, removed-in: '', replacement-api: ''}\n"
    )
    loaded = load_file(rules)
    # rows of other components compare against their own versions, not Kubernetes': skipped
    assert [(r.api_version, r.kind) for r in loaded] == [
        ("example.test/v1beta1", "Widget"),
        ("example.test/v1alpha1", "*"),
    ]
    widget = loaded[0]
    assert (widget.deprecated_in, widget.removed_in) == ((1, 24), (1, 27))
    assert [(r.api_version, r.since) for r in widget.replacements] == [("example.test/v1", (1, 25))]
    assert loaded[1].removed_in is None and loaded[1].replacements == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apis: 3\n", "expected an 'apis' list"),
        ("[]\n", "expected a mapping"),
        ("apis:\n- {apiVersion: a/v1}\n", "apis[0]: 'kind' is required"),
        (
            "apis:\n- {apiVersion: a/v1, kind: K, removedIn: soon}\n",
            "apis[0].removedIn: 'soon' is not a Kubernetes version",
        ),
        ("apis:\n- {apiVersion: a/v1, kind: K, colour: red}\n", "apis[0]: unknown field(s) colour"),
        (
            "apis:\n- {apiVersion: a/v1, kind: K, replacements: [{apiVersion: a/v2, sine: '1.2'}]}\n",
            "replacements[0]: unknown field(s) sine",
        ),
        ("apis:\n- {apiVersion: a/v1, kind: K}\n- {apiVersion: a/v1, kind: K}\n", "a/v1 K is listed twice"),
        ("schema: other/v9\napis: []\n", "unsupported schema 'other/v9'"),
        ("apis: [\n", "not valid YAML"),
    ],
)
def test_bad_rule_files_name_file_and_entry(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_file(path)
    assert message in str(err.value)
    assert str(path) in str(err.value)


def test_user_rules_may_not_redefine_built_in_ones(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("apis:\n- {apiVersion: batch/v1beta1, kind: CronJob, removedIn: '1.30'}\n")
    with pytest.raises(ConfigError, match=r"batch/v1beta1 CronJob is already defined \(built-in\)"):
        knowledge_base(path)


def test_missing_rules_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        knowledge_base(tmp_path / "absent.yaml")


# --- pluto coverage ----------------------------------------------------------------------------------
# pluto v5.24.0 cannot be built here (the Go module proxy answers 403 for github.com/fairwindsops/pluto/v5),
# so its embedded data could not be read with `pluto list-versions`. These are the Kubernetes rows
# (component k8s, *List kinds left out) of FairwindsOps/pluto `versions.yaml` at commit
# 0c240f6f148818693f0898f1944afef7751a2537, read through the project's code search; values are
# (apiVersion, kind, deprecated-in, removed-in, replacement-api), versions as major.minor.
PLUTO_ROWS = [
    ("extensions/v1beta1", "Deployment", "1.9", "1.16", "apps/v1"),
    ("apps/v1beta2", "Deployment", "1.9", "1.16", "apps/v1"),
    ("apps/v1beta1", "Deployment", "1.9", "1.16", "apps/v1"),
    ("apps/v1beta1", "StatefulSet", "1.9", "1.16", "apps/v1"),
    ("apps/v1beta2", "StatefulSet", "1.9", "1.16", "apps/v1"),
    ("extensions/v1beta1", "NetworkPolicy", "1.9", "1.16", "networking.k8s.io/v1"),
    ("extensions/v1beta1", "Ingress", "1.14", "1.22", "networking.k8s.io/v1"),
    ("networking.k8s.io/v1beta1", "Ingress", "1.19", "1.22", "networking.k8s.io/v1"),
    ("networking.k8s.io/v1beta1", "IngressClass", "1.19", "1.22", "networking.k8s.io/v1"),
    ("apps/v1beta2", "DaemonSet", "1.9", "1.16", "apps/v1"),
    ("extensions/v1beta1", "DaemonSet", "1.9", "1.16", "apps/v1"),
    ("extensions/v1beta1", "PodSecurityPolicy", "1.10", "1.16", "policy/v1beta1"),
    ("policy/v1beta1", "PodSecurityPolicy", "1.21", "1.25", ""),
    ("extensions/v1beta1", "ReplicaSet", "", "1.16", "apps/v1"),
    ("apps/v1beta1", "ReplicaSet", "", "1.16", "apps/v1"),
    ("apps/v1beta2", "ReplicaSet", "", "1.16", "apps/v1"),
    ("scheduling.k8s.io/v1beta1", "PriorityClass", "1.14", "1.22", "scheduling.k8s.io/v1"),
    ("scheduling.k8s.io/v1alpha1", "PriorityClass", "1.14", "1.17", "scheduling.k8s.io/v1"),
    ("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition", "1.16", "1.22", "apiextensions.k8s.io/v1"),
    (
        "admissionregistration.k8s.io/v1beta1",
        "MutatingWebhookConfiguration",
        "1.16",
        "1.22",
        "admissionregistration.k8s.io/v1",
    ),
    (
        "admissionregistration.k8s.io/v1beta1",
        "ValidatingWebhookConfiguration",
        "1.16",
        "1.22",
        "admissionregistration.k8s.io/v1",
    ),
    *[
        (f"rbac.authorization.k8s.io/{v}", kind, "1.17", "1.22", "rbac.authorization.k8s.io/v1")
        for v in ("v1alpha1", "v1beta1")
        for kind in ("ClusterRoleBinding", "ClusterRole", "Role", "RoleBinding")
    ],
    ("node.k8s.io/v1beta1", "RuntimeClass", "1.22", "1.25", "node.k8s.io/v1"),
    ("policy/v1beta1", "PodDisruptionBudget", "1.21", "1.25", "policy/v1"),
    ("autoscaling/v2beta1", "HorizontalPodAutoscaler", "1.22", "1.25", "autoscaling/v2"),
    ("autoscaling/v2beta2", "HorizontalPodAutoscaler", "1.23", "1.26", "autoscaling/v2"),
    ("batch/v1beta1", "CronJob", "1.21", "1.25", "batch/v1"),
    ("storage.k8s.io/v1beta1", "CSINode", "1.17", "1.22", "storage.k8s.io/v1"),
    ("storage.k8s.io/v1beta1", "CSIDriver", "1.19", "1.22", "storage.k8s.io/v1"),
    ("storage.k8s.io/v1beta1", "CSIStorageCapacity", "1.24", "1.27", "storage.k8s.io/v1"),
    ("storage.k8s.io/v1beta1", "StorageClass", "1.6", "1.22", "storage.k8s.io/v1"),
    ("storage.k8s.io/v1beta1", "VolumeAttachment", "1.13", "1.22", "storage.k8s.io/v1"),
    ("apiregistration.k8s.io/v1beta1", "APIService", "1.10", "1.22", "apiregistration.k8s.io/v1"),
    ("authentication.k8s.io/v1beta1", "TokenReview", "1.6", "1.22", "authentication.k8s.io/v1"),
    ("certificates.k8s.io/v1beta1", "CertificateSigningRequest", "1.19", "1.22", "certificates.k8s.io/v1"),
    ("coordination.k8s.io/v1beta1", "Lease", "1.14", "1.22", "coordination.k8s.io/v1"),
    ("events.k8s.io/v1beta1", "Event", "1.19", "1.25", "events.k8s.io/v1"),
    ("discovery.k8s.io/v1beta1", "EndpointSlice", "1.21", "1.25", "discovery.k8s.io/v1"),
    ("flowcontrol.apiserver.k8s.io/v1beta1", "FlowControl", "1.23", "1.26", "flowcontrol.apiserver.k8s.io/v1beta2"),
    ("flowcontrol.apiserver.k8s.io/v1beta2", "FlowSchema", "1.24", "1.29", "flowcontrol.apiserver.k8s.io/v1beta3"),
    (
        "flowcontrol.apiserver.k8s.io/v1beta2",
        "PriorityLevelConfiguration",
        "1.24",
        "1.29",
        "flowcontrol.apiserver.k8s.io/v1beta3",
    ),
    (
        "flowcontrol.apiserver.k8s.io/v1beta1",
        "PriorityLevelConfiguration",
        "1.24",
        "1.29",
        "flowcontrol.apiserver.k8s.io/v1beta3",
    ),
    ("flowcontrol.apiserver.k8s.io/v1beta1", "FLowSchema", "1.24", "1.29", "flowcontrol.apiserver.k8s.io/v1beta3"),
]

# Every disagreement with those rows, with the reason (where pluto and Kubernetes' own data differ).
# deprecated-in: pluto's value differs from k8s.io/api's generated lifecycle (source A); cosmetic.
PLUTO_DEPRECATED_IN_DIFFERS = {
    ("extensions/v1beta1", "Deployment"): "1.8",
    ("extensions/v1beta1", "DaemonSet"): "1.8",
    ("apps/v1beta1", "Deployment"): "1.8",
    ("apps/v1beta1", "StatefulSet"): "1.8",
    ("extensions/v1beta1", "ReplicaSet"): "1.8",
    ("apps/v1beta2", "ReplicaSet"): "1.9",
    ("extensions/v1beta1", "PodSecurityPolicy"): "1.11",
    ("scheduling.k8s.io/v1alpha1", "PriorityClass"): "",  # an alpha: no deprecation tag in A
    ("apiregistration.k8s.io/v1beta1", "APIService"): "1.19",
    ("authentication.k8s.io/v1beta1", "TokenReview"): "1.19",
    ("coordination.k8s.io/v1beta1", "Lease"): "1.19",
    ("storage.k8s.io/v1beta1", "StorageClass"): "1.19",
    ("storage.k8s.io/v1beta1", "VolumeAttachment"): "1.19",
    ("events.k8s.io/v1beta1", "Event"): "1.22",
    ("flowcontrol.apiserver.k8s.io/v1beta2", "FlowSchema"): "1.26",
    ("flowcontrol.apiserver.k8s.io/v1beta2", "PriorityLevelConfiguration"): "1.26",
    ("flowcontrol.apiserver.k8s.io/v1beta1", "PriorityLevelConfiguration"): "1.23",
}
# removed-in: pluto is wrong; A, G (migration guide), K (kube-no-trouble) and S (schemas) agree on 1.26
PLUTO_REMOVED_IN_DIFFERS = {("flowcontrol.apiserver.k8s.io/v1beta1", "PriorityLevelConfiguration"): "1.26"}
# kinds that do not exist: "FlowControl" is not a Kubernetes kind and "FLowSchema" is a typo; the
# real flowcontrol v1beta1 kinds are in our table
PLUTO_BOGUS_KINDS = {
    ("flowcontrol.apiserver.k8s.io/v1beta1", "FlowControl"),
    ("flowcontrol.apiserver.k8s.io/v1beta1", "FLowSchema"),
}


def _minor(key: tuple[int, int] | None) -> str:
    return f"{key[0]}.{key[1]}" if key else ""


@pytest.mark.parametrize("row", PLUTO_ROWS, ids=lambda r: f"{r[0]}:{r[1]}")
def test_table_covers_every_pluto_row_or_documents_why_not(row: tuple[str, str, str, str, str]) -> None:
    api, kind, deprecated, removed, replacement = row
    kb = builtin()
    if (api, kind) in PLUTO_BOGUS_KINDS:
        assert kb.lookup(api, kind) is None
        assert kb.lookup(api, "FlowSchema") is not None and kb.lookup(api, "PriorityLevelConfiguration") is not None
        return
    rule = kb.lookup(api, kind)
    assert rule is not None, f"{api} {kind} is in pluto's data but not in ours"
    assert _minor(rule.deprecated_in) == PLUTO_DEPRECATED_IN_DIFFERS.get((api, kind), deprecated)
    assert _minor(rule.removed_in) == PLUTO_REMOVED_IN_DIFFERS.get((api, kind), removed)
    if replacement:
        assert replacement in [r.api_version for r in rule.replacements]
    else:
        assert rule.replacements == ()


def test_documented_differences_are_real_disagreements() -> None:
    """A documented difference that pluto no longer has (or never had) must not linger."""
    rows = {(r[0], r[1]): r for r in PLUTO_ROWS}
    for key, ours in PLUTO_DEPRECATED_IN_DIFFERS.items():
        assert rows[key][2] != ours
    for key, ours in PLUTO_REMOVED_IN_DIFFERS.items():
        assert rows[key][3] != ours
    assert set(rows) >= PLUTO_BOGUS_KINDS


def test_knowledge_base_rejects_duplicates_across_files() -> None:
    kb = KnowledgeBase([])
    extra = builtin().rules.values()
    assert len(kb.extended(extra)) == 127
    with pytest.raises(ConfigError, match="already defined"):
        kb.extended(extra).extended(list(extra)[:1])
