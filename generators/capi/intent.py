"""What CAPI intends for one cluster, as a pure function of its objects (table-tested, no I/O, no clock).

- **register**: the control plane is initialised (``status.initialization.controlPlaneInitialized`` or
  the ``ControlPlaneInitialized`` condition) and the Cluster is not being deleted.
- **upgrade_to**: the desired version (``spec.topology.version`` of a ClusterClass cluster, else the
  KubeadmControlPlane's ``spec.version``) is a higher minor than the lowest version CAPI reports running
  (``status.controlPlane.versions`` and ``status.workers.versions`` of the Cluster, else the control
  plane's own ``status.versions``, else the version the prober last wrote on our Secret). It stays set
  until every machine CAPI reports runs the desired minor, so the plugin renders for both versions and
  the preflight gate holds for the whole roll.
- **decommission**: the Cluster has a deletion timestamp.
- **workers**: the sum of ``spec.replicas`` over the cluster's MachineDeployments and MachinePools.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.capi.objects import CapiCluster, ControlPlane, WorkerGroup
from argocd_lifecycle.versions import KubeVersion


@dataclass(frozen=True)
class Intent:
    register: bool
    decommission: bool = False
    #: why the cluster is not registered (yet), for logs and Events
    waiting: str = ""
    desired_version: str = ""
    current_version: str = ""
    #: ``1.35`` while an upgrade to a higher minor is wanted, else ""
    upgrade_to: str = ""
    #: total desired worker replicas, None without any MachineDeployment/MachinePool replicas
    workers: int | None = None
    #: the groups counted, sorted: (kind, name, replicas)
    groups: tuple[tuple[str, str, int], ...] = ()


def _version(text: str) -> KubeVersion | None:
    try:
        return KubeVersion.parse(text) if text else None
    except UsageError:
        return None


def lowest(versions: Iterable[str]) -> str:
    """The lowest parseable version of a list (the one that lags), or ""."""
    parsed = [(v, text) for text in versions if (v := _version(text)) is not None]
    return min(parsed, key=lambda p: (p[0].major, p[0].minor, p[0].patch or 0))[1] if parsed else ""


def desired_version(cluster: CapiCluster, control_plane: ControlPlane | None) -> str:
    if cluster.topology_version:
        return cluster.topology_version
    return control_plane.version if control_plane is not None else ""


def current_version(cluster: CapiCluster, control_plane: ControlPlane | None, probed: str = "") -> str:
    reported = lowest((*cluster.control_plane_versions, *cluster.worker_versions))
    if not reported and control_plane is not None:
        reported = lowest(control_plane.versions)
    return reported or probed


def upgrade_to(desired: str, current: str) -> str:
    want, have = _version(desired), _version(current)
    if want is None or have is None or want.key <= have.key:
        return ""
    return want.minor_version


def intent(
    cluster: CapiCluster,
    control_plane: ControlPlane | None,
    groups: Iterable[WorkerGroup],
    *,
    probed_version: str = "",
) -> Intent:
    """``control_plane`` is the cluster's KubeadmControlPlane when there is one (None otherwise);
    ``groups`` its MachineDeployments/MachinePools; ``probed_version`` what our Secret last said."""
    desired = desired_version(cluster, control_plane)
    current = current_version(cluster, control_plane, probed_version)
    counted = tuple(sorted((g.kind, g.name, g.replicas) for g in groups if g.replicas is not None))
    workers = sum(r for _, _, r in counted) if counted else None
    if cluster.deleting:
        waiting = "the Cluster is being deleted"
    elif not cluster.initialized:
        waiting = "the control plane is not initialised yet"
    else:
        waiting = ""
    return Intent(
        register=not waiting,
        decommission=cluster.deleting,
        waiting=waiting,
        desired_version=desired,
        current_version=current,
        upgrade_to="" if cluster.deleting else upgrade_to(desired, current),
        workers=workers,
        groups=counted,
    )


def scaled_message(before: int, intent_now: Intent, previous: tuple[tuple[str, str, int], ...] = ()) -> str:
    """``workers 1 -> 3 (MachineDeployment md-0 1 -> 3)``; the per-group detail when it is known."""
    after = intent_now.workers or 0
    old = {(k, n): r for k, n, r in previous}
    changed = [
        f"{kind} {name} {old.get((kind, name), 0)} -> {replicas}"
        for kind, name, replicas in intent_now.groups
        if previous and old.get((kind, name)) != replicas
    ]
    changed += [
        f"{k} {n} {r} -> 0 (gone)"
        for (k, n), r in old.items()
        if (k, n) not in {(a, b) for a, b, _ in intent_now.groups}
    ]
    detail = f" ({', '.join(changed)})" if changed else ""
    return f"workers {before} -> {after}{detail}"
