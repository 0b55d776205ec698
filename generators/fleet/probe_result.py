"""What one probe of a cluster found: the prober's output, the state machine's and upgrade detection's input."""

from __future__ import annotations

from dataclasses import dataclass

#: the reason of a probe whose credentials failed: refused by the server (401/403), an exec plugin that
#: gave none, the pod's ServiceAccount unreadable
AUTH = "auth"


@dataclass(frozen=True)
class ProbeResult:
    """What one probe of a cluster found."""

    reachable: bool
    #: why the probe failed or found the cluster unhealthy ("" when all was well)
    error: str = ""
    git_version: str = ""
    readyz_ok: bool = False
    nodes_known: bool = False
    nodes: int = 0
    nodes_ready: int = 0
    #: kubelet (major, minor) of every node, sorted, one entry per distinct minor
    node_minors: tuple[tuple[int, int], ...] = ()
    unsupported: str = ""
    #: why the nodes are unknown although the cluster answered (a bound of the node list), "" otherwise;
    #: not a health problem, so not in ``error``
    nodes_unknown: str = ""
    #: what kind of failure ``error`` is when its text alone does not say (``AUTH``), "" otherwise
    reason: str = ""
