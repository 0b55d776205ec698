"""Which cluster Secret is the application's destination, so its ``Cluster*`` Events join the story.

Secrets are parsed by the same parser as the generator's inventory (``argocd_lifecycle.cluster_secrets``);
only their names and servers matter here.
"""

from __future__ import annotations

from collections.abc import Iterable

from argocd_lifecycle.cluster_secrets import ClusterSecret, read_cluster_secrets
from argocd_lifecycle.notifications.timeline.model import Destination


def destination_secrets(secrets: Iterable[ClusterSecret], dest: Destination) -> list[ClusterSecret]:
    """Secrets of the destination: by server URL, else by cluster name (how Argo CD resolves it)."""
    secrets = list(secrets)
    if dest.server:
        return [s for s in secrets if s.server == dest.server]
    return [s for s in secrets if dest.name and s.name == dest.name]


__all__ = ["destination_secrets", "read_cluster_secrets"]
