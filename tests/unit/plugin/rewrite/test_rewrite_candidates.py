"""The pre-check that keeps the rules and the engine out of a render with nothing to rewrite
(plugin/rewrite/candidates.py) must hold every object the engine itself would look at."""

from __future__ import annotations

import itertools

import pytest

from argocd_lifecycle.deprecations import listed, table
from argocd_lifecycle.deprecations.__main__ import listed_source
from argocd_lifecycle.deprecations.knowledge import TABLE, builtin
from argocd_lifecycle.plugin.rewrite.candidates import may_change
from argocd_lifecycle.plugin.rewrite.engine import Rewriter
from argocd_lifecycle.plugin.rewrite.policy import OnRemoved, Policy
from argocd_lifecycle.plugin.rewrite.target import Target


def test_the_compiled_pairs_are_the_tables() -> None:
    # fails when deprecations.yaml was edited without `python -m argocd_lifecycle.deprecations`
    assert {(r.api_version, r.kind) for r in table.RULES} == listed.LISTED
    namespace: dict[str, object] = {}
    exec(compile(listed_source(TABLE.read_text(encoding="utf-8")), "listed.py", "exec"), namespace)
    assert namespace["LISTED"] == listed.LISTED


TARGETS = [
    Target.of((1, 16)),
    Target.of((1, 25)),
    Target.of((1, 33), upgrade_to=(1, 35)),
    Target.of(None, api_versions=["v1", "v1/ConfigMap"]),
    Target.of((1, 29), api_versions=["policy/v1beta1", "policy/v1beta1/PodSecurityPolicy"]),
]
POLICIES = [Policy(), Policy(OnRemoved.DROP, upgrade_hpa_v1=True)]
#: every identity the table knows, next to ordinary and unknown ones
IDENTITIES = sorted(
    {(r.api_version, r.kind) for r in table.RULES}
    | {(r.api_version, k) for r in table.RULES for k in ("ClusterRole", "Role", "HorizontalPodAutoscaler")}
    | {
        ("autoscaling/v1", "HorizontalPodAutoscaler"),
        ("rbac.authorization.k8s.io/v1", "ClusterRole"),
        ("rbac.authorization.k8s.io/v1", "Role"),
        ("apps/v1", "Deployment"),
        ("v1", "ConfigMap"),
        ("example.test/v1", "Widget"),
    }
)


@pytest.mark.parametrize(("target", "policy"), list(itertools.product(TARGETS, POLICIES)))
def test_every_object_the_engine_would_look_at_is_a_candidate(target: Target, policy: Policy) -> None:
    rewriter = Rewriter(builtin(), target, policy)
    needed = [pair for pair in IDENTITIES if rewriter.needs(*pair)]
    assert needed  # the table is not empty for any of these targets
    assert [pair for pair in needed if not may_change(*pair)] == []


def test_ordinary_objects_are_not_candidates() -> None:
    assert not may_change("apps/v1", "Deployment")
    assert not may_change("v1", "ConfigMap")
    assert not may_change(None, None)
