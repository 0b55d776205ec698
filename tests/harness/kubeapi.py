"""etcd and kube-apiserver on loopback, envtest-style: no kubelet, scheduler or controller-manager."""

from __future__ import annotations

import base64
import ssl
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import yaml
from kubernetes import client as k8s
from kubernetes import config as k8s_config

from . import paths
from .pki import CertificateAuthority, KeyPair, service_account_keys
from .procs import HarnessError, Process, Supervisor, free_port


def start_etcd(sup: Supervisor, binary: Path, folder: Path) -> tuple[Process, str]:
    """One etcd member for both API servers (each keeps its own --etcd-prefix)."""
    client_port, peer_port = free_port(), free_port()
    url, peer = f"http://127.0.0.1:{client_port}", f"http://127.0.0.1:{peer_port}"
    argv = [
        str(binary),
        "--name=e2e",
        f"--data-dir={folder / 'etcd'}",
        f"--listen-client-urls={url}",
        f"--advertise-client-urls={url}",
        f"--listen-peer-urls={peer}",
        f"--initial-advertise-peer-urls={peer}",
        f"--initial-cluster=e2e={peer}",
        "--unsafe-no-fsync",  # throw-away data: fsync only slows a shared 2-core machine
        "--log-level=warn",
    ]
    proc = sup.start("etcd", argv)
    sup.wait_ready(proc, lambda: httpx.get(f"{url}/health", timeout=2).json()["health"] == "true", timeout=30)
    return proc, url


@dataclass
class Cluster:
    """One kube-apiserver: its admin identity, kubeconfig and the argv that restarts it on the same port."""

    name: str
    port: int
    folder: Path
    ca: CertificateAuthority = field(repr=False)
    admin: KeyPair = field(repr=False)
    kubeconfig: Path
    argv: list[str]
    process: Process | None = None

    @property
    def server(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def api_client(self) -> k8s.ApiClient:
        return k8s_config.new_client_from_config(config_file=str(self.kubeconfig))

    def http(self) -> httpx.Client:
        """A raw HTTP client as the admin, for requests the kubernetes client would refuse to send."""
        ctx = ssl.create_default_context(cafile=str(self.folder / "ca.crt"))
        ctx.load_cert_chain(self.folder / "admin.crt", self.folder / "admin.key")
        return httpx.Client(base_url=self.server, verify=ctx, timeout=5)

    def ready(self) -> bool:
        with self.http() as client:
            return client.get("/readyz").status_code == 200

    def argocd_cluster_config(self) -> dict[str, object]:
        """The `config` of an Argo CD cluster Secret that reaches this server as admin."""

        def b64(data: bytes) -> str:
            return base64.b64encode(data).decode()

        return {
            "tlsClientConfig": {
                "caData": b64(self.ca.cert_pem),
                "certData": b64(self.admin.cert_pem),
                "keyData": b64(self.admin.key_pem),
            }
        }


def write_kubeconfig(path: Path, cluster: Cluster, namespace: str | None) -> None:
    tls = cluster.argocd_cluster_config()["tlsClientConfig"]
    assert isinstance(tls, dict)
    context: dict[str, str] = {"cluster": cluster.name, "user": "admin"}
    if namespace:
        context["namespace"] = namespace
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": cluster.name,
                "cluster": {"server": cluster.server, "certificate-authority-data": tls["caData"]},
            }
        ],
        "users": [
            {
                "name": "admin",
                "user": {"client-certificate-data": tls["certData"], "client-key-data": tls["keyData"]},
            }
        ],
        "contexts": [{"name": cluster.name, "context": context}],
        "current-context": cluster.name,
    }
    path.write_text(yaml.safe_dump(doc))
    path.chmod(0o600)


def new_cluster(
    name: str, binary: Path, etcd_url: str, folder: Path, *, namespace: str | None = None, runtime_config: str = ""
) -> Cluster:
    """A kube-apiserver's identity and argv (not started): its own CA, a client-certificate admin in
    system:masters, its own etcd prefix; ``runtime_config`` switches on API versions that are off by
    default (``--runtime-config``)."""
    folder.mkdir(parents=True, exist_ok=True)
    ca = CertificateAuthority(f"{name}-ca")
    (folder / "ca.crt").write_bytes(ca.cert_pem)
    serving_crt, serving_key = ca.serving().write(folder, "serving")
    admin = ca.client("admin", "system:masters")
    admin.write(folder, "admin")
    sa_pub, sa_key = service_account_keys().write(folder, "service-account")
    port = free_port()
    argv = [
        str(binary),
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        f"--secure-port={port}",
        f"--etcd-servers={etcd_url}",
        f"--etcd-prefix=/{name}",
        f"--tls-cert-file={serving_crt}",
        f"--tls-private-key-file={serving_key}",
        f"--client-ca-file={folder / 'ca.crt'}",
        f"--service-account-issuer=https://127.0.0.1:{port}",
        f"--service-account-key-file={sa_pub}",
        f"--service-account-signing-key-file={sa_key}",
        "--service-cluster-ip-range=10.0.0.0/24",
        "--authorization-mode=RBAC",
        "--disable-admission-plugins=ServiceAccount",  # no controller-manager mints tokens here
        "--allow-privileged=true",
        "--profiling=false",
        f"--cert-dir={folder / 'certs'}",
    ]
    if runtime_config:
        argv.append(f"--runtime-config={runtime_config}")
    cluster = Cluster(name, port, folder, ca, admin, folder / "kubeconfig", argv)
    write_kubeconfig(cluster.kubeconfig, cluster, namespace)
    return cluster


def launch(sup: Supervisor, cluster: Cluster) -> None:
    """Start the cluster's kube-apiserver on its own port (again, after a stop); see wait_ready."""
    if cluster.process is not None and cluster.process.alive():
        raise HarnessError(f"kube-apiserver {cluster.name} is already running (pid {cluster.process.pid})")
    cluster.process = sup.start(f"kube-apiserver-{cluster.name}", cluster.argv)


def wait_ready(sup: Supervisor, cluster: Cluster, *, timeout: float = 180) -> None:
    if cluster.process is None:
        raise HarnessError(f"kube-apiserver {cluster.name} was not started")
    sup.wait_ready(cluster.process, cluster.ready, timeout=timeout)


def stop(sup: Supervisor, cluster: Cluster) -> None:
    if cluster.process is not None:
        sup.stop(cluster.process)
        cluster.process = None


def start_single(sup: Supervisor, folder: Path, name: str) -> Cluster:
    """etcd and one kube-apiserver, ready: what an integration test that needs only the API server starts."""
    _, etcd_url = start_etcd(sup, paths.tool("etcd"), folder)
    cluster = new_cluster(name, paths.tool("kube-apiserver"), etcd_url, folder / name)
    launch(sup, cluster)
    wait_ready(sup, cluster)
    return cluster
