"""Which documents a converter keeps as they are, read from their text: one table, per (old apiVersion,
kind), of a predicate that holds only for a document text on which that converter surely returns its
input and notes nothing (it reads a field the text does not hold), so ``convert`` renames the document
as text instead of loading it (``text_edit.renamed``). The predicates restate what each converter
reads; tests/unit/plugin/rewrite/files/test_files_renamed_text.py holds every entry to what loading
the document gives, and a converter without an entry is always loaded."""

from __future__ import annotations

import re
from collections.abc import Callable

from argocd_lifecycle.plugin.rewrite.files import text_edit

Keeps = Callable[[str], bool]
#: an empty flow mapping (``{}``, ``{ }``, a comment inside): the only way to write one without a tag
EMPTY_MAPPING = r"\{(?:[ \t\n]++|#[^\n]*+)*+\}"
_FC = "flowcontrol.apiserver.k8s.io/"
_RBAC = "rbac.authorization.k8s.io/v1alpha1"
_RBAC_KINDS = ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
_WORKLOADS = (
    ("extensions/v1beta1", "ReplicaSet"),
    ("apps/v1beta1", "ReplicaSet"),
    *(("apps/v1beta2", kind) for kind in ("Deployment", "DaemonSet", "StatefulSet", "ReplicaSet")),
)


def _without(pattern: str) -> Keeps:
    """Kept when the text has no match of ``pattern`` (the field the converter reads)."""
    compiled = re.compile(pattern)
    return lambda text: compiled.search(text) is None


def _shows_selector(text: str) -> bool:
    """A workload whose text shows a spec.selector: the apps/v1 converter keeps it."""
    return text_edit.has_value(text, "spec", "selector")


KEEPS: dict[tuple[str, str], Keeps] = {
    **{("admissionregistration.k8s.io/v1beta1", kind): _without("webhooks")
       for kind in ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")},
    ("autoscaling/v2beta1", "HorizontalPodAutoscaler"): _without("metrics"),
    ("policy/v1beta1", "PodDisruptionBudget"): _without(EMPTY_MAPPING),
    ("discovery.k8s.io/v1beta1", "EndpointSlice"): _without("endpoints"),
    (_FC + "v1beta2", "PriorityLevelConfiguration"): _without("assuredConcurrencyShares"),
    (_FC + "v1beta3", "PriorityLevelConfiguration"): _without("nominalConcurrencyShares"),
    **{(_RBAC, kind): _without("subjects") for kind in _RBAC_KINDS},
    **dict.fromkeys(_WORKLOADS, _shows_selector),
}  # fmt: skip
