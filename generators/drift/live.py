"""The live source: the Application from the management cluster, its objects from the destination
cluster through the prober's client, with the destination's cluster Secret's credentials (Argo CD's
``in-cluster`` entry: the pod's ServiceAccount in a pod, else the kubeconfig's credentials)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import Any

from argocd_lifecycle.cluster_secrets import ClusterSecret, read_cluster_secrets
from argocd_lifecycle.drift.report import MAX_OBJECTS, AppDrift, DriftInputError, DriftReport, read_app, report, to_read
from argocd_lifecycle.errors import LifecycleError, UsageError
from argocd_lifecycle.generators.drift.files import DriftError
from argocd_lifecycle.generators.drift.reader import ObjectReader, Read
from argocd_lifecycle.generators.fleet.in_cluster import InCluster
from argocd_lifecycle.generators.fleet.prober import ClusterClient, ProberSettings
from argocd_lifecycle.kube.client import Kube, KubeError, KubeNotFound
from argocd_lifecycle.kube.lists import pages
from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, CLUSTER_SECRET_LABEL_VALUE, IN_CLUSTER_NAME, IN_CLUSTER_SERVER


def get_application(kube: Kube, namespace: str, name: str) -> AppDrift:
    what = f"get Application {namespace}/{name} on {kube.host}"
    try:
        raw = kube.call(
            what, kube.custom.get_namespaced_custom_object, "argoproj.io", "v1alpha1", namespace, "applications", name
        )
    except KubeNotFound as exc:
        raise DriftError(f"application {name!r} not found in namespace {namespace!r}") from exc
    try:
        return read_app(raw)
    except DriftInputError as exc:
        raise DriftError(f"Application {namespace}/{name}: {exc}") from exc


def find_destination(app: AppDrift, secrets: list[ClusterSecret]) -> ClusterSecret | str:
    """The destination's cluster Secret (by server, else by name, as Argo CD resolves it), the
    ``in-cluster`` entry without one, or why there is none."""
    found = [s for s in secrets if s.server == app.dest_server] if app.dest_server else []
    if not app.dest_server:
        found = [s for s in secrets if app.dest_name and s.name == app.dest_name]
    if found:
        return found[0]
    if app.dest_server == IN_CLUSTER_SERVER or (not app.dest_server and app.dest_name == IN_CLUSTER_NAME):
        return ClusterSecret(secret_name="", namespace="", name=IN_CLUSTER_NAME, server=IN_CLUSTER_SERVER)
    return f"no cluster Secret for destination {app.dest_server or app.dest_name or '(none)'!r}"


def _secrets(kube: Kube, namespace: str) -> tuple[list[ClusterSecret], list[str]]:
    what = f"list cluster Secrets in namespace {namespace} on {kube.host}"
    selector = f"{CLUSTER_SECRET_LABEL}={CLUSTER_SECRET_LABEL_VALUE}"
    raw = list(pages(kube, what, kube.core.list_namespaced_secret, namespace, label_selector=selector))
    parsed, skipped = read_cluster_secrets(
        (s, f"Secret {namespace}/{(s.get('metadata') or {}).get('name')}") for s in raw if isinstance(s, Mapping)
    )
    return list(parsed), list(skipped)


def _client(kube: Kube, cluster: ClusterSecret, settings: ProberSettings) -> ClusterClient:
    if cluster.server == IN_CLUSTER_SERVER and not settings.in_cluster.host and not cluster.credentials.bearer_token:
        # not in a pod: the management cluster as the kubeconfig reaches it
        cluster = ClusterSecret(
            secret_name="", namespace="", name=IN_CLUSTER_NAME, server=kube.host, credentials=kube.credentials()
        )
    return ClusterClient(cluster, settings)


async def read_objects(client: ClusterClient, app: AppDrift, max_objects: int) -> dict[Any, Read]:
    try:
        return await ObjectReader(client).read_all(to_read(app, max_objects))
    finally:
        await client.aclose()


def live_report(kube: Kube, namespace: str, name: str, max_objects: int = MAX_OBJECTS) -> tuple[DriftReport, list[str]]:
    """The report and its notes (cluster Secrets skipped)."""
    app = get_application(kube, namespace, name)
    refs = to_read(app, max_objects)
    if not refs:
        return report(app, {}, max_objects), []
    notes: list[str] = []
    argocd = app.controller_namespace or namespace
    try:
        secrets, notes = _secrets(kube, argocd)
        cluster: ClusterSecret | str = find_destination(app, secrets)
    except KubeError as exc:
        cluster = f"cluster Secrets not readable: {exc}"
    if isinstance(cluster, str):
        return report(app, dict.fromkeys(refs, f"cluster not readable: {cluster}"), max_objects), notes
    if cluster.credentials.unsupported:
        reason = f"cluster not readable: {cluster.credentials.unsupported}"
        return report(app, dict.fromkeys(refs, reason), max_objects), notes
    settings = ProberSettings(in_cluster=InCluster.from_environ(os.environ))
    try:
        client = _client(kube, cluster, settings)
    except (UsageError, LifecycleError) as exc:
        return report(app, dict.fromkeys(refs, f"cluster not readable: {exc.message}"), max_objects), notes
    reads = asyncio.run(read_objects(client, app, max_objects))
    return report(app, reads, max_objects), notes
