"""Which cluster the preflight is about, and which Applications deploy to it, as Argo CD decides.

An Application's destination names its cluster by ``server`` (matched to a cluster Secret's server,
trailing ``/`` ignored) or, without a server, by ``name`` (a cluster Secret's ``name``). The cluster
asked for on the command line may be given either way. ``https://kubernetes.default.svc`` (name
``in-cluster``) is the management cluster itself and exists without a Secret, as in Argo CD.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from argocd_lifecycle.cluster_secrets import ClusterSecret
from argocd_lifecycle.generators.preflight.apps import AppRecord, PreflightInputError
from argocd_lifecycle.model import IN_CLUSTER_NAME, IN_CLUSTER_SERVER


@dataclass(frozen=True)
class ClusterRef:
    name: str
    server: str
    secret_name: str = ""
    annotations: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, secret: ClusterSecret) -> ClusterRef:
        return cls(secret.name, secret.server, secret.secret_name, dict(secret.annotations))


def resolve(wanted: str, secrets: Iterable[ClusterSecret]) -> ClusterRef:
    """The cluster named ``wanted`` (a Secret's name, or its server URL)."""
    secrets = list(secrets)
    text = wanted.strip().rstrip("/")
    by_name = [s for s in secrets if s.name == text]
    by_server = [s for s in secrets if s.server == text]
    found = by_name or by_server
    if len(found) > 1:
        names = ", ".join(sorted(s.secret_name for s in found))
        raise PreflightInputError(f"cluster {wanted!r} is named by several cluster Secrets: {names}")
    if found:
        return ClusterRef.of(found[0])
    if text in (IN_CLUSTER_NAME, IN_CLUSTER_SERVER):
        return ClusterRef(IN_CLUSTER_NAME, IN_CLUSTER_SERVER)
    known = sorted({s.name for s in secrets})
    hint = f" (known clusters: {', '.join(known[:20])}{', ...' if len(known) > 20 else ''})" if known else ""
    raise PreflightInputError(f"cluster {wanted!r} is not named by any cluster Secret{hint}")


def deploys_to(app: AppRecord, cluster: ClusterRef) -> bool:
    if app.dest_server:
        return app.dest_server == cluster.server
    return bool(app.dest_name) and app.dest_name == cluster.name
