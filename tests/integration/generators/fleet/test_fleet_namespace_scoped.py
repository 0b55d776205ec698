"""A namespace-scoped cluster against a real kube-apiserver: credentials whose RBAC role may not list nodes.

Argo CD reaches such a cluster with a Secret naming `namespaces` and `clusterResources: "false"`; its
node list answers 403. The nodes are then unknown, not unhealthy: the cluster passes the readiness gate
on /version and /readyz, and its parameters and fleet row say the nodes are unknown. The same server
seen with admin credentials counts its node, so the 403 is RBAC and not an empty cluster. A missing
binary fails the test with the reason; it is never skipped.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from argocd_lifecycle.generators.fleet.prober import FORBIDDEN
from argocd_lifecycle.generators.service.fleet_page import cluster_row
from argocd_lifecycle.generators.service.params import cluster_params
from argocd_lifecycle.generators.service.policy import PolicyTable
from tests.harness.kubeapi import Cluster, start_single
from tests.harness.procs import HarnessError, Supervisor
from tests.integration.generators.harness import by_name, eventually, phase_of, settings, started
from tests.integration.generators.loopback import cluster_secret

pytestmark = pytest.mark.upstream

NAMESPACE = "team-a"
#: what a namespace-scoped Argo CD account typically gets: everything in its namespace, nothing else
ROLE = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "Role",
    "metadata": {"name": "deployer", "namespace": NAMESPACE},
    "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}],
}
BINDING = {
    "apiVersion": "rbac.authorization.k8s.io/v1",
    "kind": "RoleBinding",
    "metadata": {"name": "deployer", "namespace": NAMESPACE},
    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "deployer"},
    "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "deployer"}],
}
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "worker-1"}}
NODE_STATUS = {
    "status": {
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "ready"}],
        "nodeInfo": {"kubeletVersion": "v1.29.3"},
    }
}


@pytest.fixture(scope="module")
def scoped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("namespace-scoped")
    sup = Supervisor(folder / "logs")
    try:
        cluster = start_single(sup, folder, "scoped")
        with cluster.http() as http:
            http.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}}).raise_for_status()
            http.post(f"/apis/rbac.authorization.k8s.io/v1/namespaces/{NAMESPACE}/roles", json=ROLE).raise_for_status()
            http.post(
                f"/apis/rbac.authorization.k8s.io/v1/namespaces/{NAMESPACE}/rolebindings", json=BINDING
            ).raise_for_status()
            http.post("/api/v1/nodes", json=NODE).raise_for_status()
            http.patch(
                "/api/v1/nodes/worker-1/status",
                content=json.dumps(NODE_STATUS),
                headers={"Content-Type": "application/merge-patch+json"},
            ).raise_for_status()
    except HarnessError as exc:
        sup.stop_all()
        pytest.fail(f"kube-apiserver/etcd did not start: {exc}", pytrace=False)
    try:
        yield cluster
    finally:
        sup.stop_all()


def _secret(cluster: Cluster, name: str, *, user: str | None) -> dict[str, Any]:
    """An Argo CD cluster Secret for ``cluster``: as ``user`` in the namespace only, or as its admin."""
    config = cluster.argocd_cluster_config()
    if user is None:
        return cluster_secret(name, cluster.server, "", b"", config=config)
    pair = cluster.ca.client(user)
    tls = dict(config["tlsClientConfig"])  # type: ignore[call-overload]
    tls["certData"] = base64.b64encode(pair.cert_pem).decode()
    tls["keyData"] = base64.b64encode(pair.key_pem).decode()
    secret = cluster_secret(name, cluster.server, "", b"", config={"tlsClientConfig": tls})
    secret["stringData"] |= {"namespaces": NAMESPACE, "clusterResources": "false"}
    return secret


def test_a_cluster_whose_credentials_may_not_list_nodes_reaches_ready(scoped: Cluster, tmp_path: Path) -> None:
    folder = tmp_path / "clusters"
    folder.mkdir()
    (folder / "scoped.yaml").write_text(yaml.safe_dump(_secret(scoped, "team-a", user="deployer")))
    (folder / "admin.yaml").write_text(yaml.safe_dump(_secret(scoped, "admin", user=None)))

    async def story() -> None:
        fleet, _ = await started(settings(clusters_from=folder, interval=0.2))
        try:
            await eventually(lambda: phase_of(fleet, "team-a") == "Ready", "the namespace-scoped cluster Ready", 60)
            await eventually(lambda: phase_of(fleet, "admin") == "Ready", "the admin view Ready", 60)
            await eventually(lambda: by_name(fleet)["team-a"].message.startswith("nodes unknown"), "its message")
            states = by_name(fleet)
        finally:
            await fleet.aclose()
        team, admin = states["team-a"], states["admin"]
        assert (admin.nodes_known, admin.nodes, admin.nodes_ready) == (True, 1, 1)  # the node is there
        assert team.ready and not team.nodes_known and team.nodes_unknown == FORBIDDEN
        assert team.message == f"nodes unknown: {FORBIDDEN}"
        assert cluster_params(team, PolicyTable.default())["lifecycle"]["nodesKnown"] == "false"
        assert cluster_params(admin, PolicyTable.default())["lifecycle"]["nodesKnown"] == "true"
        row = cluster_row(team)
        assert (row["nodesKnown"], row["nodesUnknown"]) == (False, FORBIDDEN)

    asyncio.run(story())
