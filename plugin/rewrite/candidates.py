"""Which objects the rewrite engine could change, decided without importing it or the rules.

A render is a new process, and most renders hold no object on a deprecated API: for those the engine,
the table's rules and the target logic (about a twelfth of a cold start) are never imported. This is a
superset of what the engine looks at (``Rewriter.needs``, for every target and policy): an object of a
listed (apiVersion, kind), RBAC that may grant a removed PodSecurityPolicy, and any HPA (the opt-in
autoscaling/v1 conversion); a test holds the two together.
"""

from __future__ import annotations

from argocd_lifecycle.deprecations.listed import LISTED

ROLE_KINDS = ("ClusterRole", "Role")
#: the kinds the engine may look at whatever their apiVersion (RBAC for a removed PodSecurityPolicy,
#: the opt-in HorizontalPodAutoscaler conversion)
_ANY_VERSION = frozenset((*ROLE_KINDS, "HorizontalPodAutoscaler"))


def may_change(api_version: str | None, kind: str | None) -> bool:
    # a rule of kind "*" covers every kind of its apiVersion (KnowledgeBase.lookup)
    return kind in _ANY_VERSION or (api_version, kind) in LISTED or (api_version, "*") in LISTED
