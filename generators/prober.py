"""Probe one cluster over HTTPS with its own credentials: ``/version``, ``/readyz`` and the node list.

One ``httpx.AsyncClient`` per cluster (its own TLS trust, client certificate, SNI name, proxy and
auth), kept between probes so a sweep reuses connections, and rebuilt when the credentials change.
Failures are results, never exceptions: the state machine decides what they mean.
"""

from __future__ import annotations

import contextlib
import functools
import os
import ssl
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import httpx

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.lifecycle import ProbeResult
from argocd_lifecycle.generators.secrets import ClusterSecret, Credentials
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


def build_client(cluster: ClusterSecret, settings: ProberSettings) -> httpx.AsyncClient:
    creds = cluster.credentials
    headers = {"Accept": "application/json", "User-Agent": "argocd-lifecycle-prober"}
    auth: httpx.Auth | None = None
    if creds.bearer_token:
        headers["Authorization"] = f"Bearer {creds.bearer_token}"
    elif creds.username or creds.password:
        auth = httpx.BasicAuth(creds.username, creds.password)
    return httpx.AsyncClient(
        headers=headers,
        auth=auth,
        verify=ssl_context(creds),
        proxy=creds.proxy_url or None,
        trust_env=False,
        timeout=httpx.Timeout(settings.timeout),
        # one connection, kept across sweeps: three sequential requests per probe
        limits=httpx.Limits(max_connections=1, keepalive_expiry=max(30.0, settings.interval * 3)),
        follow_redirects=False,
    )


def _describe(exc: httpx.HTTPError) -> str:
    """The root cause in a few words: ``TLS: ...``, ``connect: Connection refused``, ``timeout``."""
    if isinstance(exc, httpx.TimeoutException):
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
def _url(server: str, path: str) -> httpx.URL:
    # parsed once per cluster and path: httpx would otherwise parse the URL on every request
    return httpx.URL(server + path)


async def _get(
    client: httpx.AsyncClient, server: str, path: str, sni: str, params: dict[str, Any] | None = None
) -> httpx.Response:
    extensions = {"sni_hostname": sni} if sni else None
    try:
        resp = await client.get(_url(server, path), params=params, extensions=extensions)
    except httpx.HTTPError as exc:
        raise _Failed(f"{path}: {_describe(exc)}") from exc
    if resp.status_code in (401, 403):
        raise _Failed(f"{path}: HTTP {resp.status_code} (credentials rejected)")
    return resp


def _json(resp: httpx.Response, path: str, *, unreachable: bool = True) -> dict[str, Any]:
    if resp.status_code != 200:
        raise _Failed(f"{path}: HTTP {resp.status_code}", unreachable=unreachable)
    try:
        data = resp.json()
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


async def _nodes(client: httpx.AsyncClient, server: str, sni: str) -> list[Any]:
    items: list[Any] = []
    cont = ""
    first = f"/api/v1/nodes?limit={_NODE_PAGE}"
    while True:
        params = {"continue": cont} if cont else None
        resp = await _get(client, server, first, sni, params)
        page = _json(resp, "/api/v1/nodes", unreachable=False)
        items.extend(page.get("items") or [])
        cont = str((page.get("metadata") or {}).get("continue") or "")
        if not cont:
            return items


async def probe_with(client: httpx.AsyncClient, server: str, sni: str = "") -> ProbeResult:
    """The three requests of one probe, over an existing client."""
    try:
        version = _json(await _get(client, server, "/version", sni), "/version")
        git_version = str(version.get("gitVersion") or "")
        if not git_version:
            raise _Failed("/version: no gitVersion in the answer")
        readyz = await _get(client, server, "/readyz", sni)
        readyz_ok = readyz.status_code == 200
        problem = "" if readyz_ok else f"/readyz: HTTP {readyz.status_code}: {readyz.text.strip()[:200]}"
        try:
            items = await _nodes(client, server, sni)
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
        self._clients: dict[str, tuple[str, httpx.AsyncClient]] = {}

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
                client = build_client(cluster, self.settings)
            except UsageError as exc:
                self._clients.pop(cluster.secret_name, None)
                return ProbeResult(reachable=False, error=str(exc)), 0.0
            self._clients[cluster.secret_name] = (key, client)
        else:
            client = known[1]
        started = time.monotonic()
        result = await probe_with(client, cluster.server, creds.server_name)
        return result, time.monotonic() - started

    async def forget(self, secret_name: str) -> None:
        known = self._clients.pop(secret_name, None)
        if known is not None:
            await known[1].aclose()

    async def aclose(self) -> None:
        for name in list(self._clients):
            await self.forget(name)
