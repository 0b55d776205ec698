"""Per-cluster parameter sets: their wire shape, how one is built from a ClusterState, the answer list.

The shared keys are shaped exactly like Argo CD's Cluster generator in goTemplate mode (``name``,
``nameNormalized``, ``server``, ``project``, ``metadata.labels``/``metadata.annotations`` present only
when non-empty); Argo CD flattens nested maps with dots for fasttemplate, which gives the Cluster
generator's flat keys (``metadata.labels.env``). So an ApplicationSet switches generators by changing
only its generator block. Every value is a string, and nothing changes on a probe that changed nothing.
Which clusters an answer holds is decided in admission.py. Every set also names the ApplicationSet it
was made for (``applicationSet.namespace``/``.name``/``.project``), where it was placed (appsets.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, NotRequired, TypedDict

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.fleet.view import ClusterState
from argocd_lifecycle.generators.service.inputs import GeneratorInput
from argocd_lifecycle.generators.service.policy import PolicyTable
from argocd_lifecycle.model import Annotation, Phase
from argocd_lifecycle.times import format_rfc3339
from argocd_lifecycle.versions import KubeVersion


class MetadataParams(TypedDict):
    labels: NotRequired[dict[str, str]]
    annotations: NotRequired[dict[str, str]]


class LifecycleParams(TypedDict):
    phase: str
    phaseSince: str
    ready: str
    nodesKnown: str
    syncEnabled: str
    prune: str
    selfHeal: str


class KubernetesParams(TypedDict):
    version: str
    gitVersion: str
    major: str
    minor: str
    upgradeTo: str
    upgradeBlockers: str
    upgradeClear: str
    upgradeBlocked: str
    upgradeBlockedSince: str


class AppSetParams(TypedDict):
    """The ApplicationSet an answer is for: its namespace, name and template project ("" when templated)."""

    namespace: str
    name: str
    project: str


class RolloutParams(TypedDict):
    revision: str
    wave: str
    state: str


class ClusterParams(TypedDict):
    name: str
    nameNormalized: str
    server: str
    project: str
    metadata: MetadataParams
    lifecycle: LifecycleParams
    kubernetes: KubernetesParams
    #: only in answers to an input with a ``rollout``
    rollout: NotRequired[RolloutParams]


_INVALID_DNS_CHARS = re.compile(r"[^-a-z0-9.]")
_MAX_DNS_NAME = 253


def normalize_name(name: str) -> str:
    """Argo CD's ``SanitizeName`` (the Cluster generator's ``nameNormalized``).

    Go lowercases with the simple (one rune to one rune) Unicode mapping; Python's ``lower()`` uses the
    full mapping, which differs only for U+0130 (``İ`` -> ``i`` + combining dot): taking the first rune
    of each lowered rune gives Go's result. Each remaining rune outside ``[-a-z0-9.]`` becomes one ``-``.
    """
    lowered = "".join(ch.lower()[:1] for ch in name)
    cleaned = _INVALID_DNS_CHARS.sub("-", lowered)[:_MAX_DNS_NAME]
    return cleaned.strip("-.")


def kube_version(cluster: ClusterState) -> KubeVersion | None:
    if not cluster.git_version:
        return None
    try:
        return KubeVersion.parse(cluster.git_version)
    except UsageError:
        return None


def _flag(value: bool) -> str:
    return "true" if value else "false"


def upgrade_gate(cluster: ClusterState) -> tuple[str, str, str, str]:
    """(blockers, clear, blocked summary, blocked since) as the upgrade gate wrote them on the Secret;
    all empty while no ``upgrade-to`` is set or before the gate has decided."""
    ann = cluster.annotations
    blockers = ann.get(Annotation.UPGRADE_BLOCKERS, "") if ann.get(Annotation.UPGRADE_TO) else ""
    if not blockers.isdigit():
        return "", "", "", ""
    blocked = blockers != "0"
    summary = ann.get(Annotation.UPGRADE_BLOCKED, "") if blocked else ""
    return blockers, _flag(not blocked), summary, ann.get(Annotation.UPGRADE_BLOCKED_SINCE, "") if blocked else ""


def cluster_params(cluster: ClusterState, policy: PolicyTable) -> ClusterParams:
    """The parameter set of one cluster, without the request's ``input`` echo."""
    metadata: MetadataParams = {}
    if cluster.labels:
        metadata["labels"] = dict(cluster.labels)
    if cluster.annotations:
        metadata["annotations"] = dict(cluster.annotations)
    rule = policy.rule(cluster.phase)
    version = kube_version(cluster)
    blockers, clear, blocked, blocked_since = upgrade_gate(cluster)
    return {
        "name": cluster.name,
        "nameNormalized": normalize_name(cluster.name),
        "server": cluster.server,
        "project": cluster.project,
        "metadata": metadata,
        "lifecycle": {
            "phase": cluster.phase.value,
            "phaseSince": format_rfc3339(cluster.phase_since) if cluster.phase_since is not None else "",
            "ready": _flag(cluster.ready),
            # "false": no node facts (a namespace-scoped cluster's credentials may not list nodes), so
            # readiness rested on /version and /readyz alone
            "nodesKnown": _flag(cluster.nodes_known),
            "syncEnabled": _flag(rule.sync_enabled),
            "prune": _flag(rule.prune),
            "selfHeal": _flag(rule.self_heal),
        },
        "kubernetes": {
            "version": version.minor_version if version else "",
            "gitVersion": cluster.git_version,
            "major": str(version.major) if version else "",
            "minor": str(version.minor) if version else "",
            "upgradeTo": cluster.upgrade_to if cluster.phase is Phase.UPGRADING else "",
            "upgradeBlockers": blockers,
            "upgradeClear": clear,
            "upgradeBlocked": blocked,
            "upgradeBlockedSince": blocked_since,
        },
    }


def output_parameters(
    selected: Iterable[ClusterParams], wanted: GeneratorInput, appset: AppSetParams | None = None
) -> list[dict[str, Any]]:
    """The ``output.parameters`` list: one set per cluster, or one ``{"clusters": [...]}`` set."""
    extra: dict[str, Any] = {}
    if appset is not None:
        extra["applicationSet"] = appset
    if wanted.echo:
        extra["input"] = wanted.echo
    if wanted.flat_list:
        return [{"clusters": list(selected), **extra}]
    return [{**p, **extra} for p in selected]
