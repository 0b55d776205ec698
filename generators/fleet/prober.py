"""Probe one cluster over HTTPS with its own credentials: ``/version``, ``/readyz`` and the node list.

One connection pool per cluster (its own TLS trust, client certificate, SNI name, proxy and
auth), kept between probes so a sweep reuses connections, and rebuilt when the credentials change.
Failures are results, never exceptions: the state machine decides what they mean.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import ssl
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any

import httpcore

from argocd_lifecycle.cluster_secrets import ClusterSecret, Credentials
from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.fleet.probe_result import ProbeResult
from argocd_lifecycle.versions import KubeVersion

_NODE_PAGE = 500


@dataclass(frozen=True)
class ProberSettings:
    interval: float = 10.0
    timeout: float = 5.0
    concurrency: int = 64
    #: each period is ``interval * (1 - jitter * random())``: jitter only shortens, so detection
    #: stays within ``unreachable_after * interval``
    jitter: float = 0.1


class _Failed(Exception):
    """A probe step failed; ``unreachable`` says whether it counts as the cluster being unreachable."""

    def __init__(self, message: str, *, unreachable: bool = True) -> None:
        super().__init__(message)
        self.unreachable = unreachable


def ssl_context(creds: Credentials) -> ssl.SSLContext:
    """TLS settings of one cluster: its CA (else the system trust), client certificate, insecure.

    Contexts are shared between clusters with the same TLS material (they are never changed after
    creation), which saves memory and start-up time in fleets that share a CA.
    """
    return _context(creds.ca_pem, creds.cert_pem, creds.key_pem, creds.insecure)


@functools.lru_cache(maxsize=4096)
def _context(ca_pem: bytes, cert_pem: bytes, key_pem: bytes, insecure: bool) -> ssl.SSLContext:
    if insecure:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    elif ca_pem:
        try:
            ctx = ssl.create_default_context(cadata=ca_pem.decode("ascii", "replace"))
        except ssl.SSLError as exc:
            raise UsageError(f"config.tlsClientConfig.caData: unusable CA ({exc.reason})") from exc
    else:
        ctx = ssl.create_default_context()
    if cert_pem or key_pem:
        # the ssl module loads client keys from files only: a private, short-lived folder
        with tempfile.TemporaryDirectory(prefix="argocd-lifecycle-") as folder:
            cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
            for path, data in ((cert, cert_pem), (key, key_pem)):
                with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "wb") as fh:
                    fh.write(data)
            try:
                ctx.load_cert_chain(cert, key)
            except ssl.SSLError as exc:
                raise UsageError(f"config.tlsClientConfig: unusable client certificate/key ({exc.reason})") from exc
    return ctx


class ClusterClient:
    """One cluster's connection pool (httpcore: httpx's transport, without the per-request client work).

    The probe makes three plain GETs per period on one kept-alive connection, so httpx's request
    building, URL merging, cookie and redirect handling would only cost CPU at fleet scale.
    """

    def __init__(self, cluster: ClusterSecret, settings: ProberSettings) -> None:
        creds = cluster.credentials
        self.server = cluster.server
        headers = [(b"Accept", b"application/json"), (b"User-Agent", b"argocd-lifecycle-prober")]
        if creds.bearer_token:
            headers.append((b"Authorization", f"Bearer {creds.bearer_token}".encode()))
        elif creds.username or creds.password:
            basic = base64.b64encode(f"{creds.username}:{creds.password}".encode()).decode()
            headers.append((b"Authorization", f"Basic {basic}".encode()))
        self.headers = headers
        timeout = settings.timeout
        self.extensions: dict[str, Any] = {
            "timeout": {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}
        }
        if creds.server_name:
            self.extensions["sni_hostname"] = creds.server_name
        ctx = ssl_context(creds)
        # one connection, kept across sweeps: three sequential requests per probe
        keepalive = max(30.0, settings.interval * 3)
        self.pool: httpcore.AsyncConnectionPool | httpcore.AsyncHTTPProxy
        if creds.proxy_url:
            self.pool = httpcore.AsyncHTTPProxy(
                proxy_url=creds.proxy_url, ssl_context=ctx, max_connections=1, keepalive_expiry=keepalive
            )
        else:
            self.pool = httpcore.AsyncConnectionPool(ssl_context=ctx, max_connections=1, keepalive_expiry=keepalive)

    async def get(self, path: str) -> tuple[int, bytes]:
        try:
            resp = await self.pool.request(
                "GET", _url(self.server, path), headers=self.headers, extensions=self.extensions
            )
        except _TRANSPORT_ERRORS as exc:
            raise _Failed(f"{_path(path)}: {_describe(exc)}") from exc
        if resp.status in (401, 403):
            raise _Failed(f"{_path(path)}: HTTP {resp.status} (credentials rejected)")
        return resp.status, resp.content

    async def aclose(self) -> None:
        await self.pool.aclose()


_TRANSPORT_ERRORS = (
    httpcore.TimeoutException,
    httpcore.NetworkError,
    httpcore.ProtocolError,
    httpcore.ProxyError,
    httpcore.UnsupportedProtocol,
    OSError,
)


def _path(path: str) -> str:
    return path.split("?", 1)[0]


def _describe(exc: BaseException) -> str:
    """The root cause in a few words: ``TLS: ...``, ``connect: Connection refused``, ``timeout``."""
    if isinstance(exc, httpcore.TimeoutException):
        return f"timeout ({type(exc).__name__})"
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"TLS: {cause.verify_message or cause.reason}"
        if isinstance(cause, ssl.SSLError):
            return f"TLS: {cause.reason or cause}"
        if isinstance(cause, OSError) and cause.errno is not None:
            # asyncio's strerror carries the address; the errno's own text is the useful part
            text = os.strerror(cause.errno) if cause.errno > 0 else (cause.strerror or str(cause))
            return f"connect: {text}"
        cause = cause.__cause__ or cause.__context__
    return f"{type(exc).__name__}: {exc or type(exc).__name__}"


@functools.lru_cache(maxsize=16384)
def _url(server: str, path: str) -> httpcore.URL:
    # parsed once per cluster and path, not on every request
    return httpcore.URL(server + path)


def _json(answer: tuple[int, bytes], path: str, *, unreachable: bool = True) -> dict[str, Any]:
    status, body = answer
    if status != 200:
        raise _Failed(f"{path}: HTTP {status}", unreachable=unreachable)
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise _Failed(f"{path}: the answer is not JSON") from exc
    if not isinstance(data, dict):
        raise _Failed(f"{path}: the answer is not a JSON object")
    return data


def _node_facts(items: list[Any]) -> tuple[int, set[tuple[int, int]]]:
    ready, minors = 0, set()
    for node in items:
        status = node.get("status") or {} if isinstance(node, dict) else {}
        conditions = status.get("conditions") or []
        if any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions if isinstance(c, dict)):
            ready += 1
        kubelet = (status.get("nodeInfo") or {}).get("kubeletVersion") or ""
        with contextlib.suppress(UsageError):  # a node that has not reported its kubelet yet
            minors.add(KubeVersion.parse(kubelet).key)
    return ready, minors


async def _nodes(client: ClusterClient) -> list[Any]:
    items: list[Any] = []
    path = f"/api/v1/nodes?limit={_NODE_PAGE}"
    while True:
        page = _json(await client.get(path), "/api/v1/nodes", unreachable=False)
        items.extend(page.get("items") or [])
        cont = str((page.get("metadata") or {}).get("continue") or "")
        if not cont:
            return items
        path = f"/api/v1/nodes?limit={_NODE_PAGE}&continue={urllib.parse.quote(cont, safe='')}"


async def probe_with(client: ClusterClient) -> ProbeResult:
    """The three requests of one probe, over an existing client."""
    try:
        version = _json(await client.get("/version"), "/version")
        git_version = str(version.get("gitVersion") or "")
        if not git_version:
            raise _Failed("/version: no gitVersion in the answer")
        status, body = await client.get("/readyz")
        readyz_ok = status == 200
        text = body.decode("utf-8", "replace").strip()[:200]
        problem = "" if readyz_ok else f"/readyz: HTTP {status}: {text}"
        try:
            items: list[Any] | None = await _nodes(client)
        except _Failed as exc:
            if exc.unreachable:
                raise
            items, problem = None, problem or str(exc)
    except _Failed as exc:
        return ProbeResult(reachable=False, error=str(exc))
    ready, minors = _node_facts(items or [])
    return ProbeResult(
        reachable=True,
        error=problem,
        git_version=git_version,
        readyz_ok=readyz_ok,
        nodes_known=items is not None,
        nodes=len(items or []),
        nodes_ready=ready,
        node_minors=tuple(sorted(minors)),
    )


class Prober:
    """Keeps one client per cluster Secret and probes through it."""

    def __init__(self, settings: ProberSettings) -> None:
        self.settings = settings
        self._clients: dict[str, tuple[str, ClusterClient]] = {}

    async def probe(self, cluster: ClusterSecret) -> tuple[ProbeResult, float]:
        """The result and how long it took (seconds)."""
        creds = cluster.credentials
        if creds.unsupported:
            return ProbeResult(reachable=False, unsupported=creds.unsupported), 0.0
        key = creds.fingerprint + "|" + cluster.server
        known = self._clients.get(cluster.secret_name)
        if known is None or known[0] != key:
            if known is not None:
                await known[1].aclose()
            try:
                client = ClusterClient(cluster, self.settings)
            except UsageError as exc:
                self._clients.pop(cluster.secret_name, None)
                return ProbeResult(reachable=False, error=str(exc)), 0.0
            self._clients[cluster.secret_name] = (key, client)
        else:
            client = known[1]
        started = time.monotonic()
        result = await probe_with(client)
        return result, time.monotonic() - started

    async def forget(self, secret_name: str) -> None:
        known = self._clients.pop(secret_name, None)
        if known is not None:
            await known[1].aclose()

    async def aclose(self) -> None:
        for name in list(self._clients):
            await self.forget(name)
