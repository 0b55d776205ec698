"""Downstream clusters for tests: real HTTPS servers on 127.0.0.1 answering like a kube-apiserver.

Each ``LoopbackCluster`` is uvicorn serving ``/version``, ``/readyz`` and ``/api/v1/nodes`` over TLS
(certificates made with cryptography) behind bearer-token auth, in its own thread; it can be stopped
and started again on the same port, slowed, upgraded and scaled. ``FleetServer`` serves many
simulated clusters from one process under ``/c/<name>`` path prefixes (the benchmark's 2,000).
"""

from __future__ import annotations

import base64
import datetime as dt
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, CLUSTER_SECRET_LABEL_VALUE


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


class CertAuthority:
    def __init__(self, cn: str = "loopback-ca", *, days: int = 365) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        now = dt.datetime.now(dt.UTC)
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(_name(cn))
            .issuer_name(_name(cn))
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=days))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(self.key, hashes.SHA256())
        )
        self.pem = self.cert.public_bytes(serialization.Encoding.PEM)

    def issue(
        self, cn: str, *, dns: tuple[str, ...] = (), days: int = 90, server: bool = True, ip_san: bool = True
    ) -> tuple[bytes, bytes]:
        key = ec.generate_private_key(ec.SECP256R1())
        now = dt.datetime.now(dt.UTC)
        names: list[x509.GeneralName] = [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))] if ip_san else []
        names += [x509.DNSName(d) for d in dns]
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(cn))
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=days))
        )
        if server:
            builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        cert = builder.sign(self.key, hashes.SHA256())
        return cert.public_bytes(serialization.Encoding.PEM), _pem_key(key)


@dataclass
class SimCluster:
    """What a simulated cluster answers; tests mutate it while it runs."""

    name: str
    token: str
    git_version: str = "v1.29.3"
    kubelets: list[str] = field(default_factory=lambda: ["v1.29.3"] * 3)
    not_ready: int = 0
    readyz_ok: bool = True
    delay: float = 0.0
    requests: int = 0
    #: when set, HTTP basic auth instead of the bearer token; a token of "" means TLS client auth only
    basic: tuple[str, str] | None = None
    #: when set, the bearer token is accepted when this says so (an EKS-style token verifier)
    accepts: Callable[[str], bool] | None = None

    def upgrade(self, control_plane: str, kubelets: list[str] | None = None) -> None:
        self.git_version = control_plane
        if kubelets is not None:
            self.kubelets = kubelets

    def scale(self, count: int) -> None:
        version = self.kubelets[0] if self.kubelets else self.git_version
        self.kubelets = [version] * count

    def version_doc(self) -> dict[str, Any]:
        major, minor = self.git_version.lstrip("v").split(".")[:2]
        return {"major": major, "minor": minor, "gitVersion": self.git_version, "platform": "linux/amd64"}

    def nodes_doc(self) -> dict[str, Any]:
        items = []
        for i, kubelet in enumerate(self.kubelets):
            ready = "False" if i < self.not_ready else "True"
            items.append(
                {
                    "metadata": {"name": f"{self.name}-node-{i}"},
                    "status": {
                        "conditions": [{"type": "Ready", "status": ready}],
                        "nodeInfo": {"kubeletVersion": kubelet},
                    },
                }
            )
        return {"kind": "NodeList", "apiVersion": "v1", "metadata": {"resourceVersion": "1"}, "items": items}


async def _answer(request: Request, sim: SimCluster | None, what: str) -> Response:
    if sim is None:
        return JSONResponse({"kind": "Status", "code": 404}, status_code=404)
    sim.requests += 1
    if sim.accepts is not None:
        header = request.headers.get("authorization", "")
        if not (header.startswith("Bearer ") and sim.accepts(header.removeprefix("Bearer "))):
            return JSONResponse({"kind": "Status", "code": 401, "reason": "Unauthorized"}, status_code=401)
        expected: str | None = None
    elif sim.basic is not None:
        expected = "Basic " + base64.b64encode(":".join(sim.basic).encode()).decode()
    else:
        expected = f"Bearer {sim.token}" if sim.token else None
    if expected is not None and request.headers.get("authorization") != expected:
        return JSONResponse({"kind": "Status", "code": 401, "reason": "Unauthorized"}, status_code=401)
    if sim.delay:
        await anyio.sleep(sim.delay)
    if what == "version":
        return JSONResponse(sim.version_doc())
    if what == "readyz":
        return PlainTextResponse("ok" if sim.readyz_ok else "[-]etcd failed", status_code=200 if sim.readyz_ok else 500)
    return JSONResponse(sim.nodes_doc())


def cluster_app(single: SimCluster | None = None, fleet: dict[str, SimCluster] | None = None) -> Starlette:
    def handler(what: str) -> Any:
        async def endpoint(request: Request) -> Response:
            name = request.path_params.get("name")
            sim = single if name is None else (fleet or {}).get(name)
            return await _answer(request, sim, what)

        return endpoint

    routes = []
    for path, what in (("/version", "version"), ("/readyz", "readyz"), ("/api/v1/nodes", "nodes")):
        routes.append(Route(path, handler(what)))
        routes.append(Route("/c/{name}" + path, handler(what)))
    return Starlette(routes=routes)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerThread:
    """uvicorn in a thread on a fixed loopback port; stop() and start() again reuse the port."""

    def __init__(
        self,
        app: Any,
        port: int,
        *,
        certfile: Path | None = None,
        keyfile: Path | None = None,
        client_ca: Path | None = None,
    ) -> None:
        self.app, self.port, self.certfile, self.keyfile, self.client_ca = app, port, certfile, keyfile, client_ca
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_keep_alive=120,
            ssl_certfile=str(self.certfile) if self.certfile else None,
            ssl_keyfile=str(self.keyfile) if self.keyfile else None,
            ssl_ca_certs=str(self.client_ca) if self.client_ca else None,
            ssl_cert_reqs=ssl.CERT_REQUIRED if self.client_ca else ssl.CERT_NONE,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError(f"loopback server on port {self.port} did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._server.force_exit = True
            self._thread.join(timeout=10)
            self._server = None


class LoopbackCluster:
    """One simulated cluster on its own HTTPS port, with its own CA."""

    def __init__(
        self,
        folder: Path,
        name: str,
        token: str | None = None,
        *,
        ca_days: int = 365,
        ip_san: bool = True,
        client_certs: bool = False,
    ) -> None:
        self.sim = SimCluster(name=name, token=f"token-{name}" if token is None else token)
        self.ca = CertAuthority(f"{name}-ca", days=ca_days)
        cert, key = self.ca.issue(f"{name}-apiserver", dns=(f"{name}.clusters.test",), ip_san=ip_san)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{name}.crt").write_bytes(cert)
        (folder / f"{name}.key").write_bytes(key)
        (folder / f"{name}-ca.crt").write_bytes(self.ca.pem)
        self.port = free_port()
        self.server = ServerThread(
            cluster_app(self.sim),
            self.port,
            certfile=folder / f"{name}.crt",
            keyfile=folder / f"{name}.key",
            client_ca=folder / f"{name}-ca.crt" if client_certs else None,
        )

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self) -> LoopbackCluster:
        self.server.start()
        return self

    def stop(self) -> None:
        self.server.stop()

    def secret(self, **kw: Any) -> dict[str, Any]:
        return cluster_secret(self.sim.name, self.url, self.sim.token, self.ca.pem, **kw)


def cluster_secret(
    name: str,
    server: str,
    token: str,
    ca_pem: bytes,
    *,
    secret_name: str = "",
    namespace: str = "argocd",
    annotations: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
    config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A cluster Secret as Argo CD documents it (``stringData``, the form operators write)."""
    cfg = (
        config
        if config is not None
        else {
            "bearerToken": token,
            "tlsClientConfig": {"insecure": False, "caData": base64.b64encode(ca_pem).decode()},
        }
    )
    import json

    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": secret_name or f"cluster-{name}",
            "namespace": namespace,
            "labels": {CLUSTER_SECRET_LABEL: CLUSTER_SECRET_LABEL_VALUE, **(labels or {})},
            "annotations": dict(annotations or {}),
        },
        "type": "Opaque",
        "stringData": {"name": name, "server": server, "config": json.dumps(cfg)},
    }
