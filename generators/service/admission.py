"""Admission: which clusters belong in the answer to one generator input.

The readiness gate comes first (``readyOnly``, on by default): a cluster is admitted only once it has
passed it, and then stays through Degraded and Unreachable, so a cluster that blinks never loses its
Applications. It leaves when its Secret is deleted or, with ``dropDecommissioned``, while it is being
decommissioned. The input's name, phase, label and version filters narrow the answer further. Argo CD's
implicit in-cluster entry (no Secret, so no labels) is listed only for an input without a label selector,
as Argo CD's Cluster generator lists it.
"""

from __future__ import annotations

from argocd_lifecycle.generators.fleet.view import ClusterState
from argocd_lifecycle.generators.service.inputs import GeneratorInput
from argocd_lifecycle.generators.service.params import kube_version
from argocd_lifecycle.model import Phase
from argocd_lifecycle.versions import KubeVersion


def admitted(cluster: ClusterState, wanted: GeneratorInput) -> bool:
    """Whether ``cluster`` belongs in the answer for ``wanted`` (the rules are in the module docstring)."""
    if wanted.ready_only and not cluster.ready:
        return False
    if wanted.drop_decommissioned and cluster.phase is Phase.DECOMMISSIONING:
        return False
    if wanted.names and cluster.name not in wanted.names:
        return False
    if wanted.phases and cluster.phase not in wanted.phases:
        return False
    if cluster.implicit and wanted.selector.requirements:
        return False
    return wanted.selector.matches(cluster.labels) and _in_version_range(cluster, wanted)


def _in_version_range(cluster: ClusterState, wanted: GeneratorInput) -> bool:
    if wanted.min_version is None and wanted.max_version is None:
        return True
    version = kube_version(cluster)
    if version is None:
        return False  # cannot show the cluster is in range before its first good probe
    low, high = wanted.min_version, wanted.max_version
    return (low is None or _compare(version, low) >= 0) and (high is None or _compare(version, high) <= 0)


def _compare(version: KubeVersion, bound: KubeVersion) -> int:
    """Compare on the parts the bound names: maxVersion ``1.31`` admits 1.31.9, ``1.31.2`` does not."""
    mine: tuple[int, ...] = version.key
    theirs: tuple[int, ...] = bound.key
    if bound.patch is not None:
        mine, theirs = (*mine, version.patch or 0), (*theirs, bound.patch)
    return (mine > theirs) - (mine < theirs)
