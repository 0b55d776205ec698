"""Servers are identities: which API server a CAPI kubeconfig may register, and under whose name.

A kubeconfig is written by whoever may write Secrets in a watched namespace, and the server it names
decides what Argo CD talks to and with which credentials. So, before a server becomes a cluster
Secret, it must not be:

- the management cluster: every in-cluster spelling (``kubernetes``, ``kubernetes.default``,
  ``kubernetes.default.svc`` and ``kubernetes.default.svc.<domain>``, any port: Argo CD answers
  ``https://kubernetes.default.svc`` without a token with its own account, ``rest.InClusterConfig()``),
  the Service address pods get (``KUBERNETES_SERVICE_HOST:PORT``) and the API server the generator
  itself talks to;
- another cluster Secret's server: Argo CD picks one Secret per server, so a second one makes its
  choice of credentials for that server arbitrary (``Holders``; names are kept unique the same way);
- loopback, link-local or unspecified (``0.0.0.0`` reaches loopback), unless an ``--capi-allow-server``
  entry inside those ranges names it; or denied by ``--capi-deny-server``; or, once allow entries are
  given, outside all of them.

Servers are compared normalised (``Server.key``): scheme and host lowercased, a trailing dot and
trailing slashes dropped, the default port written out, IP addresses in one canonical form. Hosts
that only a C resolver reads as an address (``127.1``, ``2130706433``, ``0x7f.0.0.1``) and
percent-escapes (Go unescapes them in a host) are refused outright, so no spelling reaches an address
the checks did not see. Names are not resolved: a DNS name pointing at a refused address is the
deployment's to stop (the operator's deny list, a NetworkPolicy).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from argocd_lifecycle.errors import LifecycleError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

MAX_LENGTH = 2048
_DEFAULT_PORTS = {"https": 443, "http": 80}
_HOST_NAME = re.compile(r"^(?=.{1,253}$)[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$")
# a last label a C resolver (inet_aton) reads as a number: decimal, octal or hex
_NUMERIC_LABEL = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$")
_PATH = re.compile(r"^(/[A-Za-z0-9._~-]+)*/*$")
#: the in-cluster Service of the API server, by every name a pod resolves to it
_IN_CLUSTER = re.compile(r"^kubernetes(\.default(\.svc(\..+)?)?)?$")
#: names every resolver maps to loopback (RFC 6761 ``localhost`` and below it; Debian's /etc/hosts)
_LOOPBACK_NAMES = re.compile(r"^(.+\.)?localhost$|^localhost\.localdomain$|^ip6-(localhost|loopback)$")
#: addresses refused unless an allow entry inside them names them
_SPECIAL: tuple[IPNetwork, ...] = tuple(
    ipaddress.ip_network(n) for n in ("127.0.0.0/8", "::1/128", "169.254.0.0/16", "fe80::/10", "0.0.0.0/32", "::/128")
)


class InvalidServer(LifecycleError):
    """A server URL that is not one plain API server address (the message never quotes more than it)."""


@dataclass(frozen=True)
class Server:
    """A parsed server URL: what it is compared by, and the host the rules look at."""

    url: str
    scheme: str
    host: str
    port: int
    path: str
    ip: IPAddress | None

    @property
    def key(self) -> str:
        """The normalised form two spellings of one server share."""
        host = f"[{self.host}]" if self.ip is not None and self.ip.version == 6 else self.host
        return f"{self.scheme}://{host}:{self.port}{self.path}"

    @property
    def endpoint(self) -> tuple[str, int]:
        return self.host, self.port


def _ip(text: str) -> IPAddress | None:
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    return ip


def parse_server(text: object) -> Server:
    """``https://host[:port][/path]`` -> ``Server``; ``InvalidServer`` names what is wrong, never the value."""
    if not isinstance(text, str) or not text:
        raise InvalidServer("the cluster has no server")
    if len(text) > MAX_LENGTH or not text.isascii() or any(c.isspace() or ord(c) < 0x20 for c in text):
        raise InvalidServer("server is not a URL")
    try:
        url = urlsplit(text)
        port = url.port
    except ValueError as exc:
        raise InvalidServer("server is not a URL") from exc
    scheme = url.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not url.hostname:
        raise InvalidServer("server must be an https:// URL with a host")
    if url.username is not None or url.password is not None or url.query or url.fragment or "?" in text:
        raise InvalidServer("server must not carry credentials, a query or a fragment")
    if "%" in url.netloc:
        raise InvalidServer("server's host must not hold percent-escapes")
    raw_host = url.hostname.rstrip(".") if not url.netloc.startswith("[") else url.hostname
    ip = _ip(raw_host)
    if ip is None:
        if url.netloc.startswith("[") or not _HOST_NAME.match(raw_host):
            raise InvalidServer("server's host is neither a host name nor an IP address")
        if _NUMERIC_LABEL.match(raw_host.rsplit(".", 1)[-1]):
            raise InvalidServer("server's host is an IP address in a non-canonical form")
    if not _PATH.match(url.path) or {".", ".."} & set(url.path.split("/")):
        raise InvalidServer("server's path must be plain segments (no escapes, empty, '.' or '..' segments)")
    host = ip.compressed if ip is not None else raw_host
    return Server(text, scheme, host, port or _DEFAULT_PORTS[scheme], url.path.rstrip("/"), ip)


@dataclass(frozen=True)
class ServerRule:
    """One ``--capi-allow-server``/``--capi-deny-server`` entry: a CIDR or address, a host name, or
    ``*.domain`` (every name below it)."""

    text: str
    network: IPNetwork | None = None
    name: str = ""

    @classmethod
    def parse(cls, text: str, *, where: str) -> ServerRule:
        entry = text.strip().lower()
        try:
            return cls(entry, network=ipaddress.ip_network(entry, strict=False))
        except ValueError:
            pass
        name = entry.removeprefix("*.").rstrip(".")
        if not _HOST_NAME.match(name) or _NUMERIC_LABEL.match(name.rsplit(".", 1)[-1]):
            raise InvalidServer(f"{where}: {text!r} is not a CIDR, an IP address, a host name or '*.domain'")
        return cls(entry if entry.startswith("*.") else name, name=name)

    def matches(self, server: Server) -> bool:
        if self.network is not None:
            return server.ip is not None and server.ip.version == self.network.version and server.ip in self.network
        if server.ip is not None:
            return False
        if self.text.startswith("*."):
            return server.host.endswith("." + self.name)
        return server.host == self.name

    @property
    def special(self) -> bool:
        """Whether the entry lies inside loopback, link-local or unspecified: only such an entry lets those in."""
        if self.network is not None:
            return any(_inside(self.network, n) for n in _SPECIAL)
        return bool(_LOOPBACK_NAMES.match(self.name))


def _inside(network: IPNetwork, outer: IPNetwork) -> bool:
    first, last = int(network.network_address), int(network.broadcast_address)
    low, high = int(outer.network_address), int(outer.broadcast_address)
    return network.version == outer.version and low <= first and last <= high


def _special(server: Server) -> bool:
    if server.ip is not None:
        return server.ip.is_loopback or server.ip.is_link_local or server.ip.is_unspecified
    return bool(_LOOPBACK_NAMES.match(server.host))


@dataclass(frozen=True)
class ServerPolicy:
    """What the operator allows and denies, and the management cluster's own API server addresses."""

    allow: tuple[ServerRule, ...] = ()
    deny: tuple[ServerRule, ...] = ()
    #: (host, port) of the management cluster's API server, as the generator and pods reach it
    management: frozenset[tuple[str, int]] = frozenset()

    def with_management(self, urls: Iterable[str]) -> ServerPolicy:
        found = set(self.management)
        for url in urls:
            try:
                found.add(parse_server(url).endpoint)
            except InvalidServer:
                continue  # not an address a kubeconfig could spell either
        return ServerPolicy(self.allow, self.deny, frozenset(found))

    def refusal(self, server: Server) -> str | None:
        """Why ``server`` may not be registered, or None. Checks in order; the first that refuses speaks."""
        if _IN_CLUSTER.match(server.host):
            return "the server is the management cluster's in-cluster API server (Argo CD would use its own account)"
        if server.endpoint in self.management:
            return "the server is the management cluster's API server"
        denied = next((r for r in self.deny if r.matches(server)), None)
        if denied is not None:
            return f"the server is refused by --capi-deny-server {denied.text}"
        if _special(server):
            if not any(r.special and r.matches(server) for r in self.allow):
                return (
                    "the server is a loopback, link-local or unspecified address "
                    "(refused unless --capi-allow-server names it)"
                )
        elif self.allow and not any(r.matches(server) for r in self.allow):
            return "the server is not admitted by any --capi-allow-server entry"
        return None


def server_key(text: str) -> str:
    """``Server.key`` of a server; a hand-written spelling we would refuse keeps its exact string."""
    try:
        return parse_server(text).key
    except InvalidServer:
        return text


class Holders:
    """Which cluster Secrets hold each key (a normalised server, an Argo CD cluster name), by Secret name."""

    def __init__(self) -> None:
        self._by_name: dict[str, str] = {}
        self._holders: dict[str, set[str]] = {}

    def key_of(self, name: str) -> str | None:
        return self._by_name.get(name)

    def put(self, name: str, key: str | None) -> set[str]:
        """Record (None: forget) the key of Secret ``name``; the Secrets sharing its old or new key."""
        old = self._by_name.pop(name, None)
        if old is not None:
            held = self._holders.get(old, set())
            held.discard(name)
            if not held:
                self._holders.pop(old, None)
        if key is not None:
            self._by_name[name] = key
            self._holders.setdefault(key, set()).add(name)
        return {n for k in (old, key) if k is not None for n in self._holders.get(k, ())} - {name}

    def others(self, key: str, name: str) -> list[str]:
        """The Secrets other than ``name`` holding ``key``, sorted."""
        return sorted(self._holders.get(key, set()) - {name})
