"""Argo CD cluster Secrets: wire shapes and parsing into domain values.

Parsing follows Argo CD's ``SecretToCluster``: ``name`` and ``server`` are required, the server's
trailing ``/`` is trimmed, ``config`` is JSON whose ``caData``/``certData``/``keyData`` are base64 of
PEM. ``stringData`` is honoured too (it wins over ``data``, as the API server merges it), so the
manifests an operator keeps on disk parse the same as the Secrets the API returns.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict, cast

from argocd_lifecycle.certs import CertificateError, earliest_expiry
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.kube_wire import KubeObject
from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, CLUSTER_SECRET_LABEL_VALUE


class SecretWire(KubeObject, total=False):
    type: str
    data: dict[str, str]
    stringData: dict[str, str]


class TLSClientConfigWire(TypedDict, total=False):
    insecure: bool
    serverName: str
    caData: str
    certData: str
    keyData: str


class ClusterConfigWire(TypedDict, total=False):
    username: str
    password: str
    bearerToken: str
    tlsClientConfig: TLSClientConfigWire
    awsAuthConfig: dict[str, Any]
    execProviderConfig: dict[str, Any]
    disableCompression: bool
    proxyUrl: str


class InvalidClusterSecret(LifecycleError):
    """A cluster Secret that cannot be used; the message names the Secret and the field."""


@dataclass(frozen=True)
class Credentials:
    """How to talk to a cluster. Secret values never appear in reprs."""

    bearer_token: str = field(default="", repr=False)
    username: str = ""
    password: str = field(default="", repr=False)
    ca_pem: bytes = field(default=b"", repr=False)
    cert_pem: bytes = field(default=b"", repr=False)
    key_pem: bytes = field(default=b"", repr=False)
    insecure: bool = False
    server_name: str = ""
    proxy_url: str = field(default="", repr=False)
    #: why the prober cannot use these credentials ("" when it can)
    unsupported: str = ""
    #: digest of the whole ``config``: changes exactly when the credentials are rotated
    fingerprint: str = ""


@dataclass(frozen=True)
class ClusterSecret:
    """One parsed cluster Secret."""

    secret_name: str
    namespace: str
    name: str
    server: str
    uid: str = ""
    resource_version: str = ""
    project: str = ""
    namespaces: tuple[str, ...] = ()
    cluster_resources: bool = False
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    credentials: Credentials = field(default_factory=Credentials)
    #: earliest expiry of the CA and the client certificate
    certificate_expires_at: datetime | None = None


def is_cluster_secret(obj: SecretWire) -> bool:
    labels = obj.get("metadata", {}).get("labels") or {}
    return labels.get(CLUSTER_SECRET_LABEL) == CLUSTER_SECRET_LABEL_VALUE


def _values(obj: SecretWire, where: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for key, raw in (obj.get("data") or {}).items():
        try:
            values[key] = base64.b64decode(str(raw), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise InvalidClusterSecret(f"{where}: data.{key} is not base64 of UTF-8 text") from exc
    for key, text in (obj.get("stringData") or {}).items():
        values[key] = str(text)
    return values


def _pem(tls: dict[str, Any], key: str, where: str) -> bytes:
    raw = tls.get(key)
    if not raw:
        return b""
    if not isinstance(raw, str):
        raise InvalidClusterSecret(f"{where}: config.tlsClientConfig.{key} must be a base64 string")
    try:
        return base64.b64decode(raw, validate=True)
    except binascii.Error as exc:
        raise InvalidClusterSecret(f"{where}: config.tlsClientConfig.{key} is not base64") from exc


def _str_field(cfg: dict[str, Any], key: str, where: str) -> str:
    value = cfg.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidClusterSecret(f"{where}: config.{key} must be a string")
    return value


def parse_config(text: str, where: str) -> Credentials:
    """Parse the ``config`` JSON (an empty string means no credentials at all)."""
    if not text.strip():
        return Credentials(fingerprint=hashlib.sha256(b"").hexdigest())
    try:
        cfg = json.loads(text)
    except ValueError as exc:
        raise InvalidClusterSecret(f"{where}: config is not JSON ({exc})") from exc
    if not isinstance(cfg, dict):
        raise InvalidClusterSecret(f"{where}: config must be a JSON object")
    tls = cfg.get("tlsClientConfig") or {}
    if not isinstance(tls, dict):
        raise InvalidClusterSecret(f"{where}: config.tlsClientConfig must be an object")
    insecure = tls.get("insecure", False)
    if not isinstance(insecure, bool):
        raise InvalidClusterSecret(f"{where}: config.tlsClientConfig.insecure must be true or false")
    server_name = tls.get("serverName") or ""
    if not isinstance(server_name, str):
        raise InvalidClusterSecret(f"{where}: config.tlsClientConfig.serverName must be a string")
    unsupported = ""
    if (cfg.get("execProviderConfig") or {}).get("command"):
        unsupported = "exec-provider auth (execProviderConfig) is not supported by the prober"
    elif (cfg.get("awsAuthConfig") or {}).get("clusterName"):
        unsupported = "AWS IAM auth (awsAuthConfig) is not supported by the prober"
    canonical = json.dumps(cfg, sort_keys=True, separators=(",", ":")).encode()
    return Credentials(
        bearer_token=_str_field(cfg, "bearerToken", where),
        username=_str_field(cfg, "username", where),
        password=_str_field(cfg, "password", where),
        ca_pem=_pem(tls, "caData", where),
        cert_pem=_pem(tls, "certData", where),
        key_pem=_pem(tls, "keyData", where),
        insecure=insecure,
        server_name=server_name,
        proxy_url=_str_field(cfg, "proxyUrl", where),
        unsupported=unsupported,
        fingerprint=hashlib.sha256(canonical).hexdigest(),
    )


def parse_secret(obj: SecretWire, *, where: str = "") -> ClusterSecret:
    """Parse one cluster Secret; ``InvalidClusterSecret`` names the Secret and the bad field."""
    meta = obj.get("metadata") or {}
    secret_name = meta.get("name") or ""
    namespace = meta.get("namespace") or ""
    where = where or f"Secret {namespace}/{secret_name}"
    if not secret_name:
        raise InvalidClusterSecret(f"{where}: metadata.name is missing")
    values = _values(obj, where)
    name = values.get("name", "").strip()
    server = values.get("server", "").strip().rstrip("/")
    if not name:
        raise InvalidClusterSecret(f"{where}: data.name is missing")
    if not server:
        raise InvalidClusterSecret(f"{where}: data.server is missing")
    if not server.startswith(("https://", "http://")):
        raise InvalidClusterSecret(f"{where}: data.server {server!r} is not an http(s) URL")
    credentials = parse_config(values.get("config", ""), where)
    try:
        expires = earliest_expiry(
            ("config.tlsClientConfig.caData", credentials.ca_pem),
            ("config.tlsClientConfig.certData", credentials.cert_pem),
        )
    except CertificateError as exc:
        raise InvalidClusterSecret(f"{where}: {exc}") from exc
    # The Secret's own labels and annotations, unfiltered: Argo CD's Cluster generator passes them
    # through as metadata.labels/annotations, and our parameters must be a drop-in superset.
    labels = {str(k): str(v) for k, v in (meta.get("labels") or {}).items()}
    annotations = {str(k): str(v) for k, v in (meta.get("annotations") or {}).items()}
    namespaces = tuple(n.strip() for n in values.get("namespaces", "").split(",") if n.strip())
    return ClusterSecret(
        secret_name=secret_name,
        namespace=namespace,
        name=name,
        server=server,
        uid=meta.get("uid") or "",
        resource_version=meta.get("resourceVersion") or "",
        project=values.get("project", ""),
        namespaces=namespaces,
        cluster_resources=values.get("clusterResources") == "true",
        labels=labels,
        annotations=annotations,
        credentials=credentials,
        certificate_expires_at=expires,
    )


def read_cluster_secrets(
    objects: Iterable[tuple[Mapping[str, Any], str]],
) -> tuple[list[ClusterSecret], list[str]]:
    """Parse the cluster Secrets among ``(object, where)`` (other Secrets are skipped unread); an unusable
    one is skipped with a note, as a reader of files or lists must not fail on one bad Secret."""
    found, notes = [], []
    for obj, where in objects:
        wire = cast(SecretWire, obj)
        if not is_cluster_secret(wire):
            continue
        try:
            found.append(parse_secret(wire, where=where))
        except InvalidClusterSecret as exc:
            notes.append(f"cluster Secret skipped: {exc}")
    return found, notes
