"""Cluster API in the tests: its CRDs (from the module, via tools/build.sh capi_crds) and its objects.

CAPI's controllers cannot create machines here, so the tests do what they would: write the Cluster,
control plane and worker objects from tests/fixtures/capi/, their status through the status
subresource, and the ``<cluster>-kubeconfig`` Secret (type ``cluster.x-k8s.io/secret``, key ``value``,
CAPI's cluster-name label, owned by the Cluster) pointing at a real API server.
"""

from __future__ import annotations

import base64
import copy
import time
from pathlib import Path
from typing import Any, Protocol

import httpx
import yaml

from . import paths
from .procs import HarnessError

FIXTURES = paths.REPO / "tests" / "fixtures" / "capi"
NAMESPACE = "capi-clusters"
# the kinds the generator watches; the others of the module are installed too, as clusterctl would
SERVED = [
    ("cluster.x-k8s.io", "v1beta2", "clusters"),
    ("cluster.x-k8s.io", "v1beta2", "machinedeployments"),
    ("cluster.x-k8s.io", "v1beta2", "machinepools"),
    ("controlplane.cluster.x-k8s.io", "v1beta2", "kubeadmcontrolplanes"),
]


def crd_folder() -> Path:
    folder = paths.tools_bin() / "capi-crds"
    if not any(folder.glob("*.yaml")):
        raise HarnessError(f"the Cluster API CRDs are not fetched ({folder} is empty): run `tools/build.sh capi_crds`")
    return folder


def fixture(stem: str, **changes: Any) -> dict[str, Any]:
    """A fixture object (deep copy); ``name=``/``namespace=`` rename it."""
    doc: dict[str, Any] = copy.deepcopy(yaml.safe_load((FIXTURES / f"{stem}.yaml").read_text()))
    for key, value in changes.items():
        doc["metadata"][key] = value
    return doc


def kubeconfig(cluster: str, server: str, ca_pem: bytes, *, cert_pem: bytes = b"", key_pem: bytes = b"",
               token: str = "") -> dict[str, Any]:  # fmt: skip
    """The kubeconfig CAPI writes: one cluster, one ``<cluster>-admin`` user, one context, current."""

    def b64(data: bytes) -> str:
        return base64.b64encode(data).decode()

    user: dict[str, Any] = {}
    if cert_pem:
        user.update({"client-certificate-data": b64(cert_pem), "client-key-data": b64(key_pem)})
    if token:
        user["token"] = token
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster, "cluster": {"server": server, "certificate-authority-data": b64(ca_pem)}}],
        "contexts": [
            {"name": f"{cluster}-admin@{cluster}", "context": {"cluster": cluster, "user": f"{cluster}-admin"}}
        ],
        "users": [{"name": f"{cluster}-admin", "user": user}],
        "current-context": f"{cluster}-admin@{cluster}",
    }


def kubeconfig_secret(cluster: dict[str, Any], config: dict[str, Any] | str) -> dict[str, Any]:
    """``<cluster>-kubeconfig`` as CAPI's kubeconfig.GenerateSecretWithOwner builds it."""
    meta = cluster["metadata"]
    text = config if isinstance(config, str) else yaml.safe_dump(config)
    owner = {"apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster", "name": meta["name"]}
    if meta.get("uid"):
        owner["uid"] = meta["uid"]
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "cluster.x-k8s.io/secret",
        "metadata": {
            "name": f"{meta['name']}-kubeconfig",
            "namespace": meta["namespace"],
            "labels": {"cluster.x-k8s.io/cluster-name": meta["name"]},
            "ownerReferences": [owner],
        },
        "data": {"value": base64.b64encode(text.encode()).decode()},
    }


#: what `generator serve` gets in the e2e tier: the Cluster API source on, for one namespace
#: (the downstream kube-apiserver listens on loopback, which the generator refuses unless told)
GENERATOR_FLAGS = [
    "--capi",
    "--capi-namespace",
    NAMESPACE,
    "--capi-copy-label",
    "env",
    "--capi-allow-server",
    "127.0.0.0/8",
]


class ApiServer(Protocol):
    """A kube-apiserver of the harness (kubeapi.Cluster), reached as its admin."""

    def http(self) -> httpx.Client: ...


def install(cluster: ApiServer) -> None:
    """The management cluster as clusterctl leaves it, minus the controllers: CRDs and a namespace."""
    with cluster.http() as http:
        install_crds(http)
        response = http.post("/api/v1/namespaces", json={"metadata": {"name": NAMESPACE}})
        if response.status_code not in (201, 409):
            raise HarnessError(f"creating namespace {NAMESPACE}: HTTP {response.status_code}")


def install_crds(http: httpx.Client, *, timeout: float = 90) -> None:
    """Create every CRD of the module's two folders and wait until the watched kinds are served."""
    for path in sorted(crd_folder().glob("*.yaml")):
        crd = yaml.safe_load(path.read_text())
        response = http.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", json=crd)
        if response.status_code not in (201, 409):
            raise HarnessError(f"creating the CRD of {path.name}: HTTP {response.status_code} {response.text[:300]}")
    deadline = time.monotonic() + timeout
    for group, version, plural in SERVED:
        while http.get(f"/apis/{group}/{version}/{plural}").status_code != 200:
            if time.monotonic() > deadline:
                raise HarnessError(f"{plural}.{group} was not served within {timeout:.0f}s")
            time.sleep(0.2)
