"""Probe one cluster over HTTPS with its own credentials: ``/version``, ``/readyz`` and the node list.

The health probe is ``/version`` + ``/readyz`` every period; node facts (name, Ready, kubelet version)
are read on a slower cadence (``node_interval``, a minute by default), from the server-side Table form
of the node list (what ``kubectl get nodes`` asks for: a row of a few hundred bytes per node instead of
the whole Node object) served from the watch cache (``resourceVersion=0``), so a 5,000-node cluster's
etcd is never read for them. They are read at once while an upgrade is in flight (the nodes on more than
one minor, or on another minor than the control plane) and when the control plane's version changes.

One connection pool per cluster (its own TLS trust, client certificate, SNI name, proxy and
auth), kept between probes so a sweep reuses connections, and rebuilt when the credentials change.
Failures are results, never exceptions: the state machine decides what they mean.

A cluster's endpoint is not trusted: every answer is read as it streams and dropped past its byte cap,
the node list has a page and a node budget (past them the nodes are unknown, which is not unhealthy;
so are they when the node list answers 403: credentials that may not list nodes, a namespace-scoped cluster),
each parsed page is reduced to counts before the next read (so only one parse is alive at a time, not
one per concurrent probe), and the whole probe has one deadline, so a server that trickles bytes
becomes a timeout and frees its concurrency slot.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import json
import logging
import math
import os
import re
import ssl
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import httpcore

from argocd_lifecycle.cluster_secrets import ClusterSecret, Credentials
from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.fleet.exec_credentials import (
    ExecCredentialError,
    ExecCredentials,
    ExecSettings,
    IssuedCredential,
)
from argocd_lifecycle.generators.fleet.in_cluster import InCluster, InClusterError, PodToken
from argocd_lifecycle.generators.fleet.probe_result import AUTH, ProbeResult
from argocd_lifecycle.model import IN_CLUSTER_SERVER
from argocd_lifecycle.versions import KubeVersion

log = logging.getLogger(__name__)

#: nodes asked for per page: 50 nodes of a busy cluster (50 images each, managed fields) are about 1 MiB
#: when a server answers whole Node objects; 50 Table rows are about 12 KiB
NODE_PAGE = 50
#: the Table form first, whole objects from a server that has no Table (what kubectl sends, and kubectl's
#: `includeObject=None` below: no per-row object metadata)
_TABLE = b"application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
#: an object's metadata alone (managedFields included): how drift attribution reads a Secret, so its
#: data never leaves the API server
_METADATA = b"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
#: the cap of ``/version`` and ``/readyz``: a few hundred bytes from a real kube-apiserver
SMALL_ANSWER = 64 * 1024
#: a continue token is a few hundred bytes; it goes back in the next URL
_MAX_CONTINUE = 4096
#: the longest ``gitVersion`` kept (``v1.29.3-eks-adc7111``, ``v1.30.2+k3s1``): it reaches annotations
_MAX_GIT_VERSION = 64
_GIT_VERSION = re.compile(r"v?[0-9]{1,4}\.[0-9]{1,4}(\.[0-9]{1,6})?([-+][0-9A-Za-z.+_-]*)?")
_MIB = 1024 * 1024


@dataclass(frozen=True)
class ProberSettings:
    interval: float = 10.0
    #: of each connect, read and write (httpcore's own timeouts)
    timeout: float = 5.0
    concurrency: int = 64
    #: each period is ``interval * (1 - jitter * random())``: jitter only shortens, so detection
    #: stays within ``unreachable_after * interval``
    jitter: float = 0.1
    #: of the whole probe, inside its concurrency slot: past it the probe is a timeout
    deadline: float = 15.0
    #: the byte cap of one node-list page (``/version`` and ``/readyz`` have ``SMALL_ANSWER``)
    page_bytes: int = 2 * _MIB
    #: nodes one list may hold (Kubernetes supports 5,000); past it the nodes are unknown
    max_nodes: int = 5000
    #: node facts are read at most this often (seconds; 0: every probe), apart from an upgrade in flight
    node_interval: float = 60.0
    #: which exec credential plugins may run, and how
    exec: ExecSettings = field(default_factory=ExecSettings)
    #: the management cluster as its pods reach it (``https://kubernetes.default.svc``)
    in_cluster: InCluster = field(default_factory=InCluster)

    def __post_init__(self) -> None:
        if self.node_interval < 0:
            raise UsageError(f"--probe-node-interval ({self.node_interval:g}s) must not be negative")
        if self.deadline < self.timeout:  # the request timeouts would never get their turn
            raise UsageError(
                f"--probe-deadline ({self.deadline:g}s) must be at least --probe-timeout ({self.timeout:g}s)"
            )

    @property
    def max_pages(self) -> int:
        """Pages one node list may take: twice what ``max_nodes`` needs (a server may send short pages)."""
        return 2 * math.ceil(self.max_nodes / NODE_PAGE)


class _Failed(Exception):
    """A probe step failed; ``unreachable`` says whether it counts as the cluster being unreachable,
    ``reason`` what kind of failure it is when the message alone does not say (``auth``)."""

    def __init__(self, message: str, *, unreachable: bool = True, reason: str = "") -> None:
        super().__init__(message)
        self.unreachable = unreachable
        self.reason = reason


#: what ``ClusterClient`` raises when a request fails (transport, TLS, an answer past its cap)
RequestFailed = _Failed


class _OverBudget(_Failed):
    """An answer or the node list went past one of its bounds (on the node list: the nodes are unknown)."""


class _Forbidden(_Failed):
    """The node list answered 403: these credentials may not list nodes (a namespace-scoped cluster)."""


#: why the nodes of a cluster whose credentials may not list them are unknown (not unhealthy)
FORBIDDEN = "/api/v1/nodes: HTTP 403 (these credentials may not list nodes; readiness rests on /version and /readyz)"


def _refused(status: int, path: str) -> None:
    """401 and 403 are the credentials rejected: the cluster counts as unreachable."""
    if status in (401, 403):
        raise _Failed(f"{path}: HTTP {status} (credentials rejected)", reason=AUTH)


def _uses_pod_account(cluster: ClusterSecret) -> bool:
    """Argo CD reaches ``https://kubernetes.default.svc`` with its pod's own ServiceAccount unless the
    Secret gives a username, password or bearer token (``RawRestConfig``'s in-cluster cases)."""
    creds = cluster.credentials
    return cluster.server == IN_CLUSTER_SERVER and not (creds.username or creds.password or creds.bearer_token)


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

    Credentials are static (a bearer token, basic auth, a client certificate), from an exec plugin (the
    token or certificate it printed, until it expires or the server answers 401), or the pod's own
    ServiceAccount for ``https://kubernetes.default.svc`` without credentials of its own, as Argo CD's
    ``RawRestConfig`` has them.
    """

    def __init__(self, cluster: ClusterSecret, settings: ProberSettings) -> None:
        creds = cluster.credentials
        self.server = cluster.server
        self.pod_token: PodToken | None = None
        if _uses_pod_account(cluster):
            self.pod_token = PodToken(settings.in_cluster)
            self.server = settings.in_cluster.server()
            creds = settings.in_cluster.credentials()
        headers = [(b"Accept", b"application/json"), (b"User-Agent", b"argocd-lifecycle-prober")]
        self.exec = ExecCredentials(creds.exec_plugin, settings.exec) if creds.exec_plugin else None
        if self.exec is None:
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
        self.table_headers = [(b"Accept", _TABLE), *headers[1:]]
        self.metadata_headers = [(b"Accept", _METADATA), *headers[1:]]
        if creds.server_name:
            self.extensions["sni_hostname"] = creds.server_name
        self.creds = creds
        # one connection, kept across sweeps: three sequential requests per probe
        self.keepalive = max(30.0, settings.interval * 3)
        self.pool = self._pool(creds.cert_pem, creds.key_pem)
        #: the client certificate the pool presents (an exec plugin's may change it)
        self.cert = (creds.cert_pem, creds.key_pem)
        #: the exec credential the current probe sends
        self.issued: IssuedCredential | None = None
        #: the path being read, for the message when the probe's deadline ends it
        self.current = ""

    def _pool(self, cert_pem: bytes, key_pem: bytes) -> httpcore.AsyncConnectionPool | httpcore.AsyncHTTPProxy:
        creds = self.creds
        ctx = _context(creds.ca_pem, cert_pem, key_pem, creds.insecure)
        if creds.proxy_url:
            return httpcore.AsyncHTTPProxy(
                proxy_url=creds.proxy_url, ssl_context=ctx, max_connections=1, keepalive_expiry=self.keepalive
            )
        return httpcore.AsyncConnectionPool(ssl_context=ctx, max_connections=1, keepalive_expiry=self.keepalive)

    async def authenticate(self) -> None:
        """Before a probe: the exec plugin's credential (run when none is valid), the pod's token."""
        if self.pod_token is not None:
            try:
                token = self.pod_token.get()
            except InClusterError as exc:
                raise _Failed(exc.message, reason=AUTH) from exc
            self.headers[2:] = [(b"Authorization", f"Bearer {token}".encode())]
            self.table_headers[2:] = self.headers[2:]
            self.metadata_headers[2:] = self.headers[2:]
        if self.exec is None:
            return
        try:
            issued = await self.exec.get()
        except ExecCredentialError as exc:
            raise _Failed(exc.message, reason=AUTH) from exc
        except UsageError as exc:  # an unusable certificate/key pair
            raise _Failed(f"exec plugin {self.exec.plugin.command}: {exc.message}", reason=AUTH) from exc
        self.issued = issued
        auth = [(b"Authorization", f"Bearer {issued.token}".encode())] if issued.token else []
        self.headers[2:] = auth
        self.table_headers[2:] = auth
        self.metadata_headers[2:] = auth
        if (issued.cert_pem, issued.key_pem) != self.cert and issued.cert_pem:
            try:
                pool = self._pool(issued.cert_pem, issued.key_pem)
            except UsageError as exc:
                self.exec.invalidate(issued)
                raise _Failed(f"exec plugin {self.exec.plugin.command}: {exc.message}", reason=AUTH) from exc
            await self.pool.aclose()
            self.pool, self.cert = pool, (issued.cert_pem, issued.key_pem)

    def refused(self, status: int) -> None:
        """The server answered 401: an exec credential is dropped, so the next probe runs the plugin again."""
        if status == 401 and self.exec is not None and self.issued is not None:
            self.exec.invalidate(self.issued)

    #: the node facts last read and when (the prober's clock), kept between probes of this client
    facts: _Facts | None = None

    async def get(
        self, path: str, limit: int, *, once: bool = False, table: bool = False, metadata: bool = False
    ) -> tuple[int, bytearray]:
        """GET ``path``; the body is read as it streams and refused past ``limit`` bytes.

        ``once``: a path not asked again (a page's continue token), so its URL is not cached: a cache
        would keep every token a server ever sent. An answer cut short leaves its connection
        unfinished, so httpcore closes it instead of reusing it. ``table``: ask for the Table form;
        ``metadata``: for the object's metadata only.
        """
        self.current = _path(path)
        url = httpcore.URL(self.server + path) if once else _url(self.server, path)
        headers = self.table_headers if table else self.metadata_headers if metadata else self.headers
        try:
            async with self.pool.stream("GET", url, headers=headers, extensions=self.extensions) as resp:
                if resp.status in (401, 403):
                    self.refused(resp.status)
                    return resp.status, bytearray()  # refused: its body is not read (the caller says why)
                return resp.status, await _read(resp, limit, self.current)
        except _TRANSPORT_ERRORS as exc:
            raise _Failed(f"{self.current}: {_describe(exc)}") from exc

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


def _size(limit: int) -> str:
    return f"{limit // _MIB} MiB" if limit % _MIB == 0 else f"{limit // 1024} KiB"


def _declared_length(resp: httpcore.Response) -> int:
    """The Content-Length header's value (0 when absent or not a number: the read still counts)."""
    for key, value in resp.headers:
        if key.lower() == b"content-length":
            return int(value) if value.strip().isdigit() else 0
    return 0


async def _read(resp: httpcore.Response, limit: int, path: str) -> bytearray:
    """The body, at most ``limit`` bytes (one network read past it at the most: httpcore reads 64 KiB)."""
    too_large = f"{path}: the answer is larger than {_size(limit)}"
    if _declared_length(resp) > limit:
        raise _OverBudget(too_large)  # said so up front: not a byte of it is read
    body = bytearray()
    async for chunk in resp.aiter_stream():
        body += chunk
        if len(body) > limit:
            raise _OverBudget(too_large)
    return body


def _one_line(text: str) -> str:
    """Server text as one printable line (it reaches messages, Events and logs)."""
    return "".join(c if c.isprintable() else " " for c in text).strip()


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


def _json(answer: tuple[int, bytearray], path: str, *, unreachable: bool = True) -> dict[str, Any]:
    status, body = answer
    _refused(status, path)
    if status != 200:
        raise _Failed(f"{path}: HTTP {status}", unreachable=unreachable)
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than the parser goes
        raise _Failed(f"{path}: the answer is not JSON") from exc
    if not isinstance(data, dict):
        raise _Failed(f"{path}: the answer is not a JSON object")
    return data


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass
class _Nodes:
    """What the node list said so far: counts only, so no page outlives its own parse."""

    count: int = 0
    ready: int = 0
    minors: set[tuple[int, int]] = field(default_factory=set)

    def add_rows(self, rows: list[Any], status: int, version: int) -> None:
        """Table rows: ``Status`` is ``Ready`` or ``Ready,SchedulingDisabled`` for a Ready node."""
        for row in rows:
            cells = _dict(row).get("cells")
            if not isinstance(cells, list):
                continue  # not a row
            self.count += 1
            state = cells[status] if 0 <= status < len(cells) else None
            if isinstance(state, str) and state.split(",", 1)[0] == "Ready":
                self.ready += 1
            self._kubelet(cells[version] if 0 <= version < len(cells) else None)

    def _kubelet(self, kubelet: Any) -> None:
        if isinstance(kubelet, str) and len(kubelet) <= _MAX_GIT_VERSION:
            with contextlib.suppress(UsageError):  # a node that has not reported its kubelet yet
                self.minors.add(KubeVersion.parse(kubelet).key)

    def add(self, items: list[Any]) -> None:
        for node in items:
            if not isinstance(node, dict):
                continue  # not a node
            self.count += 1
            status = _dict(node.get("status"))
            conditions = status.get("conditions")
            if isinstance(conditions, list) and any(
                _dict(c).get("type") == "Ready" and _dict(c).get("status") == "True" for c in conditions
            ):
                self.ready += 1
            self._kubelet(_dict(status.get("nodeInfo")).get("kubeletVersion"))


def _column(columns: Any, name: str) -> int:
    """The index of a Table column (-1 when the server sent no such column)."""
    if isinstance(columns, list):
        for index, column in enumerate(columns):
            if _dict(column).get("name") == name:
                return index
    return -1


def _page(answer: tuple[int, bytearray], nodes: _Nodes, max_nodes: int) -> str:
    """Count one page into ``nodes``; its continue token ("" on the last page)."""
    if answer[0] == 403:  # authenticated, not allowed: node facts are unknown, not a health problem
        raise _Forbidden(FORBIDDEN)
    page = _json(answer, "/api/v1/nodes", unreachable=False)
    table = page.get("kind") == "Table"
    items = page.get("rows" if table else "items")
    if not isinstance(items, list):
        items = []
    if nodes.count + len(items) > max_nodes:  # every entry counts toward the bound, a node or not
        raise _OverBudget(f"/api/v1/nodes: more than {max_nodes} nodes")
    if table:
        columns = page.get("columnDefinitions")
        nodes.add_rows(items, _column(columns, "Status"), _column(columns, "Version"))
    else:  # a server without the Table form: whole Node objects
        nodes.add(items)
    cont = _dict(page.get("metadata")).get("continue")
    if not isinstance(cont, str):
        return ""
    if len(cont) > _MAX_CONTINUE:
        raise _OverBudget(f"/api/v1/nodes: a continue token longer than {_MAX_CONTINUE} characters")
    return cont


async def _nodes(client: ClusterClient, settings: ProberSettings) -> _Nodes:
    nodes = _Nodes()
    pages = f"/api/v1/nodes?limit={NODE_PAGE}&includeObject=None"
    # the first page from the watch cache (any resourceVersion); a continue token carries its own
    first = f"{pages}&resourceVersion=0"
    cont = _page(await client.get(first, settings.page_bytes, table=True), nodes, settings.max_nodes)
    for _ in range(settings.max_pages - 1):
        if not cont:
            return nodes
        path = f"{pages}&continue={urllib.parse.quote(cont, safe='')}"
        answer = await client.get(path, settings.page_bytes, once=True, table=True)
        cont = _page(answer, nodes, settings.max_nodes)
    if not cont:
        return nodes
    raise _OverBudget(f"/api/v1/nodes: more than {settings.max_pages} pages")


def _git_version(version: dict[str, Any]) -> str:
    text = version.get("gitVersion")
    if not text:
        raise _Failed("/version: no gitVersion in the answer")
    if not isinstance(text, str) or len(text) > _MAX_GIT_VERSION or not _GIT_VERSION.fullmatch(text):
        raise _Failed("/version: gitVersion is not a Kubernetes version")
    return text


@dataclass(frozen=True)
class _Facts:
    """Node facts as last read: the counts (None when unknown), why unknown, and when and at which
    control-plane version they were read."""

    nodes: _Nodes | None
    unknown: str
    at: float
    git_version: str

    def due(self, git_version: str, now: float, settings: ProberSettings) -> bool:
        if git_version != self.git_version or now - self.at >= settings.node_interval:
            return True
        if self.nodes is None or not self.nodes.minors:
            return False
        # an upgrade in flight: nodes on several minors, or on another one than the control plane
        try:
            control_plane = KubeVersion.parse(git_version).key
        except UsageError:
            return False
        return len(self.nodes.minors) > 1 or self.nodes.minors != {control_plane}


async def _facts(client: ClusterClient, settings: ProberSettings, git_version: str) -> tuple[_Facts | None, str]:
    """The node facts (read again when due) and a health problem the node list showed ("" when none)."""
    now = time.monotonic()
    known = client.facts
    if known is not None and not known.due(git_version, now, settings):
        return known, ""
    client.facts = None
    try:
        client.facts = _Facts(await _nodes(client, settings), "", now, git_version)
    except (_OverBudget, _Forbidden) as exc:
        # a bound or a forbidden list, not a health problem: the nodes are unknown
        client.facts = _Facts(None, str(exc), now, git_version)
    except _Failed as exc:
        if exc.unreachable:
            raise
        return None, str(exc)  # not kept: asked again at the next probe
    return client.facts, ""


async def _probe_steps(client: ClusterClient, settings: ProberSettings) -> ProbeResult:
    await client.authenticate()
    git_version = _git_version(_json(await client.get("/version", SMALL_ANSWER), "/version"))
    status, body = await client.get("/readyz", SMALL_ANSWER)
    _refused(status, "/readyz")
    readyz_ok = status == 200
    text = _one_line(bytes(body[:800]).decode("utf-8", "replace"))[:200]
    problem = "" if readyz_ok else f"/readyz: HTTP {status}: {text}"
    facts, node_problem = await _facts(client, settings, git_version)
    problem = problem or node_problem
    nodes = facts.nodes if facts else None
    unknown = facts.unknown if facts else ""
    return ProbeResult(
        reachable=True,
        error=problem,
        git_version=git_version,
        readyz_ok=readyz_ok,
        nodes_known=nodes is not None,
        nodes=nodes.count if nodes else 0,
        nodes_ready=nodes.ready if nodes else 0,
        node_minors=tuple(sorted(nodes.minors)) if nodes else (),
        nodes_unknown=unknown,
    )


async def probe_with(client: ClusterClient, settings: ProberSettings) -> ProbeResult:
    """One probe (``/version``, ``/readyz``, the node list when due) over an existing client, within
    ``settings.deadline``."""
    client.current = "/version"
    try:
        async with asyncio.timeout(settings.deadline):
            return await _probe_steps(client, settings)
    except TimeoutError:
        return ProbeResult(
            reachable=False,
            error=f"{client.current}: timeout (the probe took over its {settings.deadline:g}s deadline)",
        )
    except _Failed as exc:
        return ProbeResult(reachable=False, error=str(exc), reason=exc.reason)


def _reason(exc: UsageError) -> str:
    return AUTH if isinstance(exc, InClusterError) else ""


class Prober:
    """Keeps one client per cluster Secret and probes through it."""

    def __init__(self, settings: ProberSettings) -> None:
        self.settings = settings
        self._clients: dict[str, tuple[str, ClusterClient]] = {}
        #: why each cluster's nodes were last unknown, so the reason is logged once, not every period
        self._unknown: dict[str, str] = {}

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
                return ProbeResult(reachable=False, error=str(exc), reason=_reason(exc)), 0.0
            self._clients[cluster.secret_name] = (key, client)
        else:
            client = known[1]
        started = time.monotonic()
        result = await probe_with(client, self.settings)
        if result.reachable and self._unknown.get(cluster.secret_name, "") != result.nodes_unknown:
            if result.nodes_unknown:
                log.warning("cluster Secret %s: nodes unknown: %s", cluster.secret_name, result.nodes_unknown)
            self._unknown[cluster.secret_name] = result.nodes_unknown
        return result, time.monotonic() - started

    async def forget(self, secret_name: str) -> None:
        self._unknown.pop(secret_name, None)
        known = self._clients.pop(secret_name, None)
        if known is not None:
            await known[1].aclose()

    async def aclose(self) -> None:
        for name in list(self._clients):
            await self.forget(name)
