"""Which cluster Secret is the application's destination, so its ``Cluster*`` Events join the story.

Secrets are parsed by the same parser as the generator's inventory (``argocd_lifecycle.cluster_secrets``);
only their names and servers matter here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from argocd_lifecycle.cluster_secrets import (
    ClusterSecret,
    InvalidClusterSecret,
    SecretWire,
    is_cluster_secret,
    parse_secret,
)
from argocd_lifecycle.notifications.timeline.model import Destination

IN_CLUSTER_SERVER = "https://kubernetes.default.svc"


def destination_secrets(secrets: Iterable[ClusterSecret], dest: Destination) -> list[ClusterSecret]:
    """Secrets of the destination: by server URL, else by cluster name (how Argo CD resolves it)."""
    secrets = list(secrets)
    if dest.server:
        return [s for s in secrets if s.server == dest.server]
    return [s for s in secrets if dest.name and s.name == dest.name]


def read_cluster_secrets(
    objects: Iterable[tuple[Mapping[str, Any], str]],
) -> tuple[list[ClusterSecret], list[str]]:
    """Parse the cluster Secrets among ``(object, where)``; an unusable one is skipped with a note."""
    found, notes = [], []
    for obj, where in objects:
        wire = cast(SecretWire, obj)
        if not is_cluster_secret(wire):
            continue
        try:
            found.append(parse_secret(wire, where=where))
        except InvalidClusterSecret as exc:
            notes.append(f"cluster Secret skipped: {exc}")
    return found, notes
