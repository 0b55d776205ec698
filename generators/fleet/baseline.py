"""The mass-drop guard's baseline in Kubernetes: the watched ApplicationSets (where a request's
ApplicationSet lives, appsets.py) and their Applications (what an answer would delete,
applications.py), trusted only once both were listed in every watched namespace."""

from __future__ import annotations

from collections.abc import Iterable

from argocd_lifecycle.generators.fleet.applications import ApplicationIndex
from argocd_lifecycle.generators.fleet.appsets import AppSetIndex
from argocd_lifecycle.generators.fleet.view import ClusterState, Placement, Target


class KubeBaseline:
    """Implements ``Baseline`` (view.py) from the two caches."""

    def __init__(self, applications: ApplicationIndex, appsets: AppSetIndex) -> None:
        self.applications, self.appsets = applications, appsets

    def synced(self) -> bool:
        return self.applications.synced() and self.appsets.synced()

    def stale_seconds(self) -> float:
        return max(self.applications.stale_seconds(), self.appsets.stale_seconds())

    def place(self, name: str, namespace: str) -> Placement:
        return self.appsets.place(name, namespace)

    def targets(self, appset: str) -> frozenset[Target]:
        return self.applications.targets(appset)

    def confirm(self, appset: str) -> frozenset[Target]:
        return self.applications.confirm(appset)

    def answered(self, appset: str, clusters: Iterable[ClusterState]) -> None:
        """Nothing to remember: Argo CD's Applications are the memory."""

    def deploys_to(self, server: str) -> bool:
        return self.applications.deploys_to(server)

    def uid(self, appset: str) -> str:
        """The ApplicationSet's uid, from its object, else from its Applications' owner references."""
        return self.appsets.uid(appset) or self.applications.uid(appset)
