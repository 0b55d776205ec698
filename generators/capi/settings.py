"""``--capi`` settings, read once at start-up: which namespaces to watch, which labels to copy, which
servers a kubeconfig may name."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.capi.names import reserved
from argocd_lifecycle.generators.capi.servers import InvalidServer, ServerPolicy, ServerRule
from argocd_lifecycle.kube.names import is_namespace
from argocd_lifecycle.options import Option, Options

# a label key (optional DNS prefix, then a name), or a DNS prefix followed by "/*" (every key under it):
# a bare "*" would copy every label a tenant sets, so a glob needs its prefix
_LABEL_PREFIX = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/"
_LABEL_KEY = re.compile(f"^({_LABEL_PREFIX})?" + r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
_LABEL_GLOB = re.compile(f"^{_LABEL_PREFIX}" + r"\*$")


def _management(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The API server's Service address a pod is given (``KUBERNETES_SERVICE_HOST``/``_PORT``)."""
    host, port = environ.get("KUBERNETES_SERVICE_HOST", ""), environ.get("KUBERNETES_SERVICE_PORT", "443")
    if not host:
        return ()
    return (f"https://[{host}]:{port}" if ":" in host else f"https://{host}:{port}",)


def _rules(texts: Iterable[str], flag: str) -> tuple[ServerRule, ...]:
    try:
        return tuple(dict.fromkeys(ServerRule.parse(t, where=flag) for t in texts))
    except InvalidServer as exc:
        raise UsageError(exc.message) from exc


@dataclass(frozen=True)
class CapiSettings:
    #: namespaces whose CAPI objects are watched (at least one: there is no "every namespace")
    namespaces: tuple[str, ...]
    #: label keys of the CAPI Cluster copied onto its Argo CD Secret (``key`` or ``prefix/*``)
    copy_labels: tuple[str, ...] = ()
    #: which servers a kubeconfig may name (servers.py)
    servers: ServerPolicy = field(default_factory=ServerPolicy)

    @classmethod
    def from_options(
        cls,
        *,
        capi: bool,
        namespaces: Iterable[str],
        copy_labels: Iterable[str],
        kubernetes: bool,
        allow_servers: Iterable[str] = (),
        deny_servers: Iterable[str] = (),
        environ: Mapping[str, str] | None = None,
    ) -> CapiSettings | None:
        """Flag values -> settings (None without ``--capi``); one UsageError naming the flag and value.
        ``environ`` is the process environment, read here once for the API server's Service address."""
        spaces = tuple(dict.fromkeys(n.strip() for n in namespaces))
        labels = tuple(dict.fromkeys(k.strip() for k in copy_labels))
        allow, deny = tuple(allow_servers), tuple(deny_servers)
        if not capi:
            if spaces or labels or allow or deny:
                raise UsageError("--capi-namespace, --capi-copy-label and --capi-*-server need --capi")
            return None
        if not kubernetes:
            raise UsageError("--capi needs Kubernetes: it cannot be combined with --clusters-from")
        if not spaces:
            raise UsageError(
                "--capi needs at least one --capi-namespace: the generator reads the kubeconfig Secrets of "
                "the namespaces it watches, and watching every namespace would let it read every Secret"
            )
        for ns in spaces:
            if not is_namespace(ns):
                raise UsageError(f"--capi-namespace: {ns!r} is not a namespace name")
        for key in labels:
            if key == "*":
                raise UsageError("--capi-copy-label: '*' would copy every label a tenant sets; name keys or 'prefix/*'")
            if not key or len(key) > 317 or not (_LABEL_KEY.match(key) or _LABEL_GLOB.match(key)):
                raise UsageError(f"--capi-copy-label: {key!r} is not a label key (or 'prefix/*')")
            if reserved(key.rstrip("*")):
                raise UsageError(f"--capi-copy-label: {key!r} names Argo CD's or argocd-lifecycle's own labels")
        policy = ServerPolicy(_rules(allow, "--capi-allow-server"), _rules(deny, "--capi-deny-server"))
        return cls(spaces, labels, policy.with_management(_management(environ or {})))


#: the Cluster API source's flags, each declared once (their checks: ``CapiSettings.from_options``)
OPTIONS = Options(
    Option(
        "--capi/--no-capi",
        default=False,
        help="Register Cluster API clusters and follow their versions, deletion and scaling.",
    ),
    Option(
        "--capi-namespace",
        name="capi_namespaces",
        multiple=True,
        metavar="NS",
        help="Watch Cluster API objects in this namespace (repeatable; at least one with --capi).",
    ),
    Option(
        "--capi-copy-label",
        name="capi_copy_labels",
        multiple=True,
        metavar="KEY",
        help="Copy this label of a CAPI Cluster onto its cluster Secret (repeatable; 'prefix/*' globs).",
    ),
    Option(
        "--capi-allow-server",
        name="capi_allow_servers",
        multiple=True,
        metavar="CIDR|HOST",
        help="Register only servers matching one of these (repeatable; CIDR, address, host or '*.domain'); "
        "loopback and link-local need an entry inside those ranges.",
    ),
    Option(
        "--capi-deny-server",
        name="capi_deny_servers",
        multiple=True,
        metavar="CIDR|HOST",
        help="Never register servers matching this (repeatable; CIDR, address, host or '*.domain').",
    ),
)
#: click options of the Cluster API source, named like ``from_options``' arguments
capi_options = OPTIONS.decorate
