"""Which cluster the preflight is about, and which Applications deploy to it, as Argo CD decides.

An Application's destination names its cluster by ``server`` (matched to a cluster Secret's server,
trailing ``/`` ignored) or, without a server, by ``name`` (a cluster Secret's ``name``). The cluster
asked for on the command line may be given either way. ``https://kubernetes.default.svc`` (name
``in-cluster``) is the management cluster itself and exists without a Secret, as in Argo CD.

A Secret whose credentials do not parse (an unreadable ``caData``, say) still names its cluster: the
preflight reads only the name and the server of the destination, so such a Secret is matched by them
and the report says why its credentials were not read, rather than "not named by any cluster Secret".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from argocd_lifecycle.cluster_secrets import ClusterIdentity, ClusterSecret, SkippedSecret
from argocd_lifecycle.generators.preflight.apps import AppRecord, PreflightInputError
from argocd_lifecycle.model import IN_CLUSTER_NAME, IN_CLUSTER_SERVER


@dataclass(frozen=True)
class ClusterRef:
    name: str
    server: str
    secret_name: str = ""
    annotations: Mapping[str, str] = field(default_factory=dict)
    #: why its Secret's credentials were not read ("" when they were, or without a Secret)
    skipped: str = ""

    @classmethod
    def of(cls, secret: ClusterSecret | ClusterIdentity, skipped: str = "") -> ClusterRef:
        return cls(secret.name, secret.server, secret.secret_name, dict(secret.annotations), skipped)

    @property
    def note(self) -> str:
        """What the report says about a Secret matched by its name and server alone."""
        if not self.skipped:
            return ""
        return f"matched by name and server only, its credentials were not read: {self.skipped}"


def resolve(wanted: str, secrets: Iterable[ClusterSecret], skipped: Iterable[SkippedSecret] = ()) -> ClusterRef:
    """The cluster named ``wanted`` (a Secret's name, or its server URL), among the Secrets that parsed
    and the ones ``skipped`` whose name and server still do."""
    candidates = [ClusterRef.of(s) for s in secrets]
    candidates += [ClusterRef.of(s.identity, s.problem) for s in skipped if s.identity is not None]
    text = wanted.strip().rstrip("/")
    by_name = [c for c in candidates if c.name == text]
    by_server = [c for c in candidates if c.server == text]
    found = by_name or by_server
    if len(found) > 1:
        names = ", ".join(sorted(c.secret_name for c in found))
        raise PreflightInputError(f"cluster {wanted!r} is named by several cluster Secrets: {names}")
    if found:
        return found[0]
    if text in (IN_CLUSTER_NAME, IN_CLUSTER_SERVER):
        return ClusterRef(IN_CLUSTER_NAME, IN_CLUSTER_SERVER)
    known = sorted({c.name for c in candidates})
    hint = f" (known clusters: {', '.join(known[:20])}{', ...' if len(known) > 20 else ''})" if known else ""
    unnamed = sum(s.identity is None for s in skipped)
    if unnamed:  # one of them may be the cluster meant: its name or server is what does not parse
        hint += f"; {unnamed} cluster Secret(s) skipped without a readable name and server (see the notes)"
    raise PreflightInputError(f"cluster {wanted!r} is not named by any cluster Secret{hint}")


def deploys_to(app: AppRecord, cluster: ClusterRef) -> bool:
    if app.dest_server:
        return app.dest_server == cluster.server
    return bool(app.dest_name) and app.dest_name == cluster.name
