"""Upgrade detection: is this cluster in the middle of a Kubernetes upgrade, and towards which minor?

Three signals: the ``argocd-lifecycle.io/upgrade-to`` annotation (an operator's or a
webhook's intent), nodes on mixed kubelet minors, and a control-plane minor that changed while every
node still lags behind it. Nodes lagging a control plane that did not change are not an upgrade:
version skew within the supported window is a steady state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.fleet.probe_result import ProbeResult
from argocd_lifecycle.model import Annotation
from argocd_lifecycle.versions import KubeVersion


@dataclass(frozen=True)
class UpgradeView:
    #: ``1.33`` when an upgrade is known or in progress, else ""
    target: str
    done: bool
    detail: str = ""


def _version(text: str) -> KubeVersion | None:
    if not text:
        return None
    try:
        return KubeVersion.parse(text)
    except UsageError:
        return None


def _minor(key: tuple[int, int]) -> str:
    return f"{key[0]}.{key[1]}"


def upgrade_view(
    previous_git_version: str, upgrading: bool, probe: ProbeResult, annotations: Mapping[str, str]
) -> UpgradeView | None:
    """None when the probe carries no control-plane version."""
    cp = _version(probe.git_version)
    if cp is None:
        return None
    minors = probe.node_minors
    mixed = len(set(minors)) > 1
    detail = f"control plane {probe.git_version}, nodes on " + (
        ", ".join(_minor(m) for m in sorted(set(minors))) or "none"
    )
    wanted = _version(annotations.get(Annotation.UPGRADE_TO, ""))
    if wanted is not None:
        goal = wanted.key
        done = cp.key >= goal and not mixed and all(m >= goal for m in minors)
        return UpgradeView(_minor(goal), done, detail)
    if mixed:
        return UpgradeView(_minor(max([*minors, cp.key])), False, detail)
    previous = _version(previous_git_version)
    changed = previous is not None and previous.key != cp.key
    lagging = bool(minors) and max(minors) < cp.key
    if lagging and (changed or upgrading):
        return UpgradeView(cp.minor_version, False, detail)
    return UpgradeView(cp.minor_version if upgrading else "", True, detail)
