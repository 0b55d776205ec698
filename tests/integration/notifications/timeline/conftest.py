"""A real etcd and kube-apiserver (the pinned builds of tools/build.sh) on loopback for the live source.

Envtest-style: no kubelet or controllers, only the API. Static bearer tokens authenticate an admin
(the CLI's kubeconfig) and a second identity used through a cluster Secret, so the destination
path runs with real TLS verification and token authentication too.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

REPO = Path(__file__).resolve().parents[4]
ADMIN_TOKEN = "timeline-admin-token"
DESTINATION_TOKEN = "timeline-destination-token"


def tool(name: str) -> Path:
    """A pinned upstream binary; the test fails (never skips) when it was not built."""
    out = subprocess.run([str(REPO / "tools" / "build.sh"), "--path"], capture_output=True, text=True, check=True)
    path = Path(out.stdout.strip()) / name
    if not os.access(path, os.X_OK):
        pytest.fail(
            f"{name} is not built ({path} missing): run `make tools` or `tools/build.sh {name.replace('-', '_')}`"
        )
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait(check, what: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"{what} exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            if check():
                return
        except (httpx.HTTPError, OSError):
            pass
        time.sleep(0.3)
    pytest.fail(f"{what} not ready after {timeout}s: {log.read_text()[-2000:]}")


@dataclass
class APIServer:
    url: str
    ca_pem: bytes
    kubeconfig: Path

    def client(self, token: str = ADMIN_TOKEN) -> httpx.Client:
        import ssl

        ctx = ssl.create_default_context(cadata=self.ca_pem.decode())
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {token}"}, verify=ctx, timeout=30)


@pytest.fixture(scope="session")
def apiserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[APIServer]:
    etcd_bin, apiserver_bin = tool("etcd"), tool("kube-apiserver")
    folder = tmp_path_factory.mktemp("kube")
    procs: list[subprocess.Popen[bytes]] = []
    try:
        client_port, peer_port = free_port(), free_port()
        etcd_url = f"http://127.0.0.1:{client_port}"
        etcd_log = folder / "etcd.log"
        procs.append(
            subprocess.Popen(
                [
                    str(etcd_bin), "--name=timeline", f"--data-dir={folder / 'etcd'}",
                    f"--listen-client-urls={etcd_url}", f"--advertise-client-urls={etcd_url}",
                    f"--listen-peer-urls=http://127.0.0.1:{peer_port}",
                    f"--initial-advertise-peer-urls=http://127.0.0.1:{peer_port}",
                    f"--initial-cluster=timeline=http://127.0.0.1:{peer_port}",
                    "--unsafe-no-fsync", "--log-level=warn",
                ],
                stdout=etcd_log.open("wb"), stderr=subprocess.STDOUT,
            )
        )  # fmt: skip
        wait(lambda: httpx.get(f"{etcd_url}/health", timeout=2).json()["health"] == "true", "etcd", procs[0], etcd_log)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        (folder / "sa.key").write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        (folder / "sa.pub").write_bytes(
            key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        )
        (folder / "tokens.csv").write_text(
            f'{ADMIN_TOKEN},admin,admin-uid,"system:masters"\n{DESTINATION_TOKEN},destination,destination-uid,"system:masters"\n'
        )
        port = free_port()
        log = folder / "kube-apiserver.log"
        procs.append(
            subprocess.Popen(
                [
                    str(apiserver_bin), "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
                    f"--secure-port={port}", f"--etcd-servers={etcd_url}", f"--cert-dir={folder / 'certs'}",
                    f"--token-auth-file={folder / 'tokens.csv'}", "--authorization-mode=RBAC",
                    f"--service-account-issuer=https://127.0.0.1:{port}",
                    f"--service-account-key-file={folder / 'sa.pub'}",
                    f"--service-account-signing-key-file={folder / 'sa.key'}",
                    "--service-cluster-ip-range=10.0.0.0/24", "--disable-admission-plugins=ServiceAccount",
                    "--profiling=false",
                ],
                stdout=log.open("wb"), stderr=subprocess.STDOUT,
            )
        )  # fmt: skip
        url = f"https://127.0.0.1:{port}"
        cert = folder / "certs" / "apiserver.crt"

        def ready() -> bool:
            if not cert.exists():
                return False
            server = APIServer(url, cert.read_bytes(), folder / "kubeconfig")
            with server.client() as http:
                return http.get("/readyz").status_code == 200

        wait(ready, "kube-apiserver", procs[1], log)
        kubeconfig = folder / "kubeconfig"
        kubeconfig.write_text(
            f"""apiVersion: v1
kind: Config
clusters:
- name: timeline
  cluster:
    server: {url}
    certificate-authority: {cert}
users:
- name: admin
  user:
    token: {ADMIN_TOKEN}
contexts:
- name: timeline
  context: {{cluster: timeline, user: admin}}
current-context: timeline
"""
        )
        yield APIServer(url, cert.read_bytes(), kubeconfig)
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
