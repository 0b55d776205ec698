"""CAPI's ``<cluster>-kubeconfig`` Secret -> the server and the ``config`` JSON of an Argo CD cluster Secret.

The kubeconfig is hostile input (anyone who may write Secrets in a watched namespace can write one), so
only inline data is accepted: a file path (``certificate-authority``, ``client-certificate``,
``tokenFile``) would make the generator read its own files into a Secret, an ``exec`` or
``auth-provider`` would run or call something on its behalf. Sizes are bounded, the server must be a
plain ``https://`` (or ``http://``) URL (servers.py; whether it may be registered is the reconciler's
question), and every problem is one message naming the Secret and the field, never a value.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from argocd_lifecycle import base64_text
from argocd_lifecycle.cluster_secrets import ClusterConfigWire, SecretWire, TLSClientConfigWire
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.generators.capi.names import KUBECONFIG_KEY, KUBECONFIG_TYPE
from argocd_lifecycle.generators.capi.servers import InvalidServer, parse_server
from argocd_lifecycle.yaml import yamlio

#: a kubeconfig with one cluster is a few kilobytes; this leaves room for CA bundles
MAX_BYTES = 256 * 1024
# A bearer token as RFC 6750 spells one, and a TLS server name: the config we write then holds no
# quote, backslash or non-ASCII character, which the chart's admission policy checks it by
_TOKEN = re.compile(r"^[A-Za-z0-9._~+/-]+=*$")
_SERVER_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9.:]{0,251}[A-Za-z0-9])?$")
_REFUSED_CLUSTER = {
    "certificate-authority": "a CA file path",
    "proxy-url": "a proxy",
}
_REFUSED_USER = {
    "client-certificate": "a certificate file path",
    "client-key": "a key file path",
    "tokenFile": "a token file path",
    "exec": "an exec credential plugin",
    "auth-provider": "an auth provider",
    "username": "basic auth",
    "password": "basic auth",
    "as": "impersonation",
}


class InvalidKubeconfig(LifecycleError):
    """A kubeconfig Secret we will not turn into a cluster Secret (the message names what and where)."""


@dataclass(frozen=True)
class Endpoint:
    """Where a cluster's API server is and how to authenticate, as Argo CD's cluster ``config``."""

    server: str
    config: ClusterConfigWire = field(repr=False)


def _named(entries: Any, name: str, where: str, what: str) -> Mapping[str, Any]:
    if not isinstance(entries, list):
        raise InvalidKubeconfig(f"{where}: {what} must be a list")
    for entry in entries:
        if isinstance(entry, Mapping) and entry.get("name") == name:
            body = entry.get(what[:-1])
            if not isinstance(body, Mapping):
                raise InvalidKubeconfig(f"{where}: {what} entry {name!r} has no {what[:-1]} object")
            return body
    raise InvalidKubeconfig(f"{where}: no {what[:-1]} named {name!r}")


def _pem_data(body: Mapping[str, Any], key: str, where: str, marker: bytes) -> str:
    """A ``*-data`` field: base64 of PEM. Returned as base64 again, which is how Argo CD stores it."""
    raw = body.get(key)
    if raw is None or raw == "":
        return ""
    if not isinstance(raw, str):
        raise InvalidKubeconfig(f"{where}: {key} must be a base64 string")
    try:
        pem = base64_text.decode(raw)  # not base64.b64decode: a non-ASCII str is a bare ValueError there
    except binascii.Error as exc:
        raise InvalidKubeconfig(f"{where}: {key} is not base64") from exc
    if marker not in pem:
        raise InvalidKubeconfig(f"{where}: {key} is not PEM")
    return base64.b64encode(pem).decode("ascii")


def _server(text: Any, where: str) -> str:
    try:
        parse_server(text)
    except InvalidServer as exc:
        raise InvalidKubeconfig(f"{where}: {exc.message}") from exc
    return str(text).rstrip("/")


def _document(secret: SecretWire, where: str) -> Mapping[str, Any]:
    if secret.get("type") != KUBECONFIG_TYPE:
        raise InvalidKubeconfig(f"{where}: type is {secret.get('type')!r}, not {KUBECONFIG_TYPE}")
    raw = (secret.get("data") or {}).get(KUBECONFIG_KEY)
    if not isinstance(raw, str) or not raw:
        raise InvalidKubeconfig(f"{where}: data.{KUBECONFIG_KEY} is missing")
    if len(raw) > MAX_BYTES * 4 // 3 + 4:
        raise InvalidKubeconfig(f"{where}: data.{KUBECONFIG_KEY} is larger than {MAX_BYTES // 1024} KiB")
    try:
        text = base64_text.decode(raw).decode("utf-8")
        doc = yamlio.load(text)
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise InvalidKubeconfig(f"{where}: data.{KUBECONFIG_KEY} is not base64 of UTF-8 text") from exc
    except yaml.YAMLError as exc:
        # only the problem, never the context snippet: that would quote the kubeconfig's contents
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise InvalidKubeconfig(f"{where}: data.{KUBECONFIG_KEY} is not YAML ({problem})") from exc
    if not isinstance(doc, Mapping):
        raise InvalidKubeconfig(f"{where}: data.{KUBECONFIG_KEY} is not a kubeconfig")
    return doc


def _context(doc: Mapping[str, Any], where: str) -> Mapping[str, Any]:
    current = doc.get("current-context")
    contexts = doc.get("contexts")
    if not current and isinstance(contexts, list) and len(contexts) == 1 and isinstance(contexts[0], Mapping):
        current = contexts[0].get("name")
    if not isinstance(current, str) or not current:
        raise InvalidKubeconfig(f"{where}: no current-context")
    return _named(contexts, current, where, "contexts")


def parse_kubeconfig(secret: SecretWire, *, where: str) -> Endpoint:
    """The current context's server and credentials; ``InvalidKubeconfig`` for anything else."""
    doc = _document(secret, where)
    context = _context(doc, where)
    cluster = _named(doc.get("clusters"), str(context.get("cluster") or ""), where, "clusters")
    user = _named(doc.get("users"), str(context.get("user") or ""), where, "users")
    for body, refused in ((cluster, _REFUSED_CLUSTER), (user, _REFUSED_USER)):
        for key, what in refused.items():
            if body.get(key):
                raise InvalidKubeconfig(f"{where}: {key} ({what}) is not supported; only inline data is read")
    server = _server(cluster.get("server"), where)
    insecure = cluster.get("insecure-skip-tls-verify", False)
    server_name = cluster.get("tls-server-name") or ""
    if not isinstance(insecure, bool) or not isinstance(server_name, str):
        raise InvalidKubeconfig(f"{where}: insecure-skip-tls-verify or tls-server-name has the wrong type")
    if server_name and not _SERVER_NAME.match(server_name):
        raise InvalidKubeconfig(f"{where}: tls-server-name is not a host name or an IP address")
    tls: TLSClientConfigWire = {"insecure": insecure}
    if server_name:
        tls["serverName"] = server_name
    ca = _pem_data(cluster, "certificate-authority-data", where, b"-----BEGIN CERTIFICATE-----")
    if ca:
        tls["caData"] = ca
    cert = _pem_data(user, "client-certificate-data", where, b"-----BEGIN CERTIFICATE-----")
    key = _pem_data(user, "client-key-data", where, b"PRIVATE KEY-----")
    token = user.get("token") or ""
    if not isinstance(token, str) or len(token) > 16 * 1024 or (token and not _TOKEN.match(token)):
        raise InvalidKubeconfig(f"{where}: token must be a bearer token (letters, digits and -._~+/, then '=')")
    if bool(cert) != bool(key):
        raise InvalidKubeconfig(f"{where}: client-certificate-data and client-key-data go together")
    if not cert and not token:
        raise InvalidKubeconfig(f"{where}: the user has neither a client certificate nor a token")
    if cert:
        tls["certData"], tls["keyData"] = cert, key
    config: ClusterConfigWire = {"tlsClientConfig": tls}
    if token:
        config["bearerToken"] = token
    return Endpoint(server, config)
