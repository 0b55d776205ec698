"""A real kube-apiserver + etcd (the e2e tier's pinned builds) holding the chart's rendered objects.

Only the API server runs: no controller-manager, kubelet or scheduler, so the Deployments and the hook
Job are stored but never run. What is real is everything the API server decides: validation of every
rendered object, RBAC, the ValidatingAdmissionPolicy, and ServiceAccount tokens (TokenRequest).
"""

from __future__ import annotations

import base64
import json
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.harness import argocd, paths
from tests.harness.kubeapi import Cluster, start_single
from tests.harness.objects import Kube
from tests.harness.procs import Supervisor, wait_until

NAMESPACE = argocd.NAMESPACE


@dataclass
class RealApi:
    cluster: Cluster
    admin: Kube
    folder: Path

    def ca_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.cluster.folder / "ca.crt"))

    def token_for(self, account: str, namespace: str = NAMESPACE) -> str:
        """A real ServiceAccount token from the TokenRequest API (what a pod's projected volume holds)."""
        with self.cluster.http() as http:
            resp = http.post(
                f"/api/v1/namespaces/{namespace}/serviceaccounts/{account}/token",
                json={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}},
            )
            resp.raise_for_status()
            return str(resp.json()["status"]["token"])

    @contextmanager
    def as_account(self, account: str) -> Iterator[httpx.Client]:
        """HTTP client authenticated by the account's own token (not impersonation)."""
        headers = {"Authorization": f"Bearer {self.token_for(account)}"}
        with httpx.Client(base_url=self.cluster.server, verify=self.ca_context(), headers=headers, timeout=10) as c:
            yield c

    def kubeconfig_for(self, account: str) -> Path:
        """A kubeconfig file whose user is the account's token, for our CLI's --kubeconfig."""
        path = self.folder / f"{account}.kubeconfig"
        ca = (self.cluster.folder / "ca.crt").read_bytes()
        doc = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "real",
                    "cluster": {
                        "server": self.cluster.server,
                        "certificate-authority-data": base64.b64encode(ca).decode(),
                    },
                }
            ],
            "users": [{"name": account, "user": {"token": self.token_for(account)}}],
            "contexts": [{"name": "real", "context": {"cluster": "real", "user": account, "namespace": NAMESPACE}}],
            "current-context": "real",
        }
        path.write_text(yaml.safe_dump(doc))
        path.chmod(0o600)
        return path

    def apply_all(self, docs: list[dict[str, Any]]) -> None:
        for doc in docs:
            self.admin.apply(doc, namespace=NAMESPACE)

    def apply_cluster_self(self) -> None:
        """The cluster Secret ``cluster-self`` (Argo CD name ``self``): this API server, as Argo CD reaches it."""
        self.admin.apply({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "cluster-self", "namespace": NAMESPACE,
                         "labels": {"argocd.argoproj.io/secret-type": "cluster"}},
            "stringData": {"name": "self", "server": self.cluster.server,
                           "config": json.dumps(self.cluster.argocd_cluster_config())},
        })  # fmt: skip


def start(folder: Path, sup: Supervisor) -> RealApi:
    """etcd, one kube-apiserver, and Argo CD's CRDs and base config in its namespace (as the e2e tier)."""
    cluster = start_single(sup, folder, "chart")
    admin = Kube(cluster.api_client(), folder / "discovery.json")
    argocd.install(admin, paths.argocd_source())

    def served() -> bool:  # a new resource answers 429 "storage is (re)initializing" for a moment
        with cluster.http() as http:
            return all(
                http.get(f"/apis/argoproj.io/v1alpha1/namespaces/{NAMESPACE}/{plural}").status_code == 200
                for plural in ("applications", "applicationsets")
            )

    wait_until(served, timeout=60, what="Argo CD's resources to be served")
    return RealApi(cluster, admin, folder)


def status_message(resp: httpx.Response) -> str:
    try:
        return str(json.loads(resp.text).get("message", resp.text))
    except ValueError:
        return resp.text
