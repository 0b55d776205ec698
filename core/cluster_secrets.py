"""Argo CD cluster Secrets: wire shapes and parsing into domain values.

Parsing follows Argo CD's ``SecretToCluster``: ``name`` and ``server`` are required, the server's
trailing ``/`` is trimmed, ``config`` is JSON whose ``caData``/``certData``/``keyData`` are base64 of
PEM. ``stringData`` is honoured too (it wins over ``data``, as the API server merges it), so the
manifests an operator keeps on disk parse the same as the Secrets the API returns.

A Secret is hostile input (whoever may write Secrets in the namespace writes one): every value read is
checked here, once, and every problem is an ``InvalidClusterSecret`` naming the Secret and the field,
never a value of it, and never another exception. Names, servers and projects are bounded and hold no
control character (they reach metric labels, Events, log lines and every ApplicationSet's parameters);
a header value (the bearer token) holds none either, as Go's HTTP client, and so Argo CD, refuses one.
"""

from __future__ import annotations

import binascii
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, TypedDict, cast

from argocd_lifecycle import base64_text
from argocd_lifecycle.certs import CertificateError, canonical_bundle, earliest_expiry
from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.kube.wire import KubeObject
from argocd_lifecycle.model import CLUSTER_SECRET_LABEL, CLUSTER_SECRET_LABEL_VALUE, IN_CLUSTER_NAME, IN_CLUSTER_SERVER

#: a cluster name, like a Kubernetes object name: ApplicationSet templates stamp it into names and labels
MAX_NAME = 253
MAX_SERVER = 2048
#: what the API server allows a whole Secret; a value read from a file is held to it too
MAX_VALUE_BYTES = 1024 * 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_CONTROL_OR_SPACE = re.compile(r"[\x00-\x20\x7f]")


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


#: the ExecCredential versions client-go speaks (v1alpha1 was removed in Kubernetes 1.24)
EXEC_API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")
#: what Argo CD runs for ``awsAuthConfig`` (``RawRestConfig``), with this ExecCredential version
AWS_AUTH_COMMAND = "argocd-k8s-auth"
AWS_AUTH_API_VERSION = "client.authentication.k8s.io/v1beta1"
_MAX_ARGS = 64
_MAX_ARG = 4096
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


class InvalidClusterSecret(LifecycleError):
    """A cluster Secret that cannot be used; the message names the Secret and the field."""


@dataclass(frozen=True)
class ExecPlugin:
    """A client-go exec credential plugin, as Argo CD builds it from ``execProviderConfig`` or
    ``awsAuthConfig``: an argv (never a shell), extra environment, the ExecCredential version. The
    arguments and the environment may carry secrets (a client secret, a role), so no repr shows them."""

    command: str
    args: tuple[str, ...] = field(default=(), repr=False)
    env: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    api_version: str = AWS_AUTH_API_VERSION
    install_hint: str = ""


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
    #: the exec credential plugin that gives the token or client certificate (None: static credentials)
    exec_plugin: ExecPlugin | None = None
    #: why the prober cannot use these credentials ("" when it can)
    unsupported: str = ""
    #: digest of the whole ``config``: changes exactly when the credentials are rotated
    fingerprint: str = ""


@dataclass(frozen=True)
class ClusterIdentity:
    """Which cluster a Secret names (its name and server): what a reader matching Application
    destinations needs, readable even when the rest of the Secret is not."""

    secret_name: str
    namespace: str
    name: str
    server: str
    annotations: dict[str, str] = field(default_factory=dict)


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
    #: Argo CD's implicit in-cluster entry: no Secret stands behind it (nothing to annotate, no Event)
    implicit: bool = False


#: the inventory's key for the implicit in-cluster entry: no Secret can have this name (not DNS)
IMPLICIT_IN_CLUSTER = "(in-cluster)"


def implicit_in_cluster(namespace: str) -> ClusterSecret:
    """Argo CD's ``in-cluster`` entry, which exists without a Secret: the management cluster, reached
    with the pod's own ServiceAccount, without labels (so a label selector never selects it)."""
    return ClusterSecret(
        secret_name=IMPLICIT_IN_CLUSTER, namespace=namespace, name=IN_CLUSTER_NAME, server=IN_CLUSTER_SERVER,
        implicit=True,
    )  # fmt: skip


def is_cluster_secret(obj: SecretWire) -> bool:
    meta = obj.get("metadata")
    labels = (meta.get("labels") if isinstance(meta, Mapping) else None) or {}
    return isinstance(labels, Mapping) and labels.get(CLUSTER_SECRET_LABEL) == CLUSTER_SECRET_LABEL_VALUE


def _map(value: Any, where: str, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidClusterSecret(f"{where}: {path} must be a map")
    return value


class _Values:
    """The Secret's values, each decoded when first read (a key nobody reads is not looked at)."""

    def __init__(self, obj: SecretWire, where: str) -> None:
        self.where = where
        self.data = _map(obj.get("data"), where, "data")
        self.string_data = _map(obj.get("stringData"), where, "stringData")

    def get(self, key: str) -> str:
        where = self.where
        if key in self.string_data:
            text = self.string_data[key]
            if not isinstance(text, str):
                raise InvalidClusterSecret(f"{where}: stringData.{key} must be a string")
            if len(text) > MAX_VALUE_BYTES:
                raise InvalidClusterSecret(f"{where}: stringData.{key} is larger than 1 MiB")
            return text
        raw = self.data.get(key)
        if raw is None:
            return ""
        if not isinstance(raw, str) or len(raw) > MAX_VALUE_BYTES * 4 // 3 + 4:
            raise InvalidClusterSecret(f"{where}: data.{key} is not base64 of at most 1 MiB of UTF-8 text")
        try:
            return base64_text.decode(raw).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise InvalidClusterSecret(f"{where}: data.{key} is not base64 of UTF-8 text") from exc


def _text(value: str, where: str, key: str, limit: int, *, spaces: bool = True) -> str:
    """A value that names something (a name, a server, a project): bounded, no control character."""
    if len(value) > limit:
        raise InvalidClusterSecret(f"{where}: data.{key} is longer than {limit} characters")
    if (_CONTROL if spaces else _CONTROL_OR_SPACE).search(value):
        what = "a control character" if spaces else "a control character or a space"
        raise InvalidClusterSecret(f"{where}: data.{key} holds {what}")
    return value


def _pem(tls: Mapping[str, Any], key: str, where: str) -> bytes:
    raw = tls.get(key)
    if not raw:
        return b""
    if not isinstance(raw, str):
        raise InvalidClusterSecret(f"{where}: config.tlsClientConfig.{key} must be a base64 string")
    try:
        return base64_text.decode(raw)
    except binascii.Error as exc:
        raise InvalidClusterSecret(f"{where}: config.tlsClientConfig.{key} is not base64") from exc


def _str_field(cfg: Mapping[str, Any], key: str, where: str, *, header: bool = False) -> str:
    value = cfg.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidClusterSecret(f"{where}: config.{key} must be a string")
    if header and _CONTROL.search(value):  # Go's HTTP client refuses such a header value outright
        raise InvalidClusterSecret(f"{where}: config.{key} holds a control character")
    return value


def _auth_kind(cfg: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = cfg.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidClusterSecret(f"{where}: config.{key} must be an object")
    return value


def _load_config(text: str, where: str) -> tuple[dict[str, Any], str]:
    """The config object and the digest of its canonical form."""
    try:
        cfg = json.loads(text)
        canonical = json.dumps(cfg, sort_keys=True, separators=(",", ":")).encode()
    except RecursionError as exc:  # nested deeper than the parser or the encoder goes
        raise InvalidClusterSecret(f"{where}: config is nested too deeply") from exc
    except ValueError as exc:
        raise InvalidClusterSecret(f"{where}: config is not JSON ({_json_problem(exc)})") from exc
    if not isinstance(cfg, dict):
        raise InvalidClusterSecret(f"{where}: config must be a JSON object")
    return cfg, hashlib.sha256(canonical).hexdigest()


def _json_problem(exc: ValueError) -> str:
    """Where the JSON broke, never the text around it (the config holds credentials)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno} column {exc.colno}"
    return type(exc).__name__


def parse_config(text: str, where: str) -> Credentials:
    """Parse the ``config`` JSON (an empty string means no credentials at all)."""
    if not text.strip():
        return Credentials(fingerprint=hashlib.sha256(b"").hexdigest())
    cfg, fingerprint = _load_config(text, where)
    tls = cfg.get("tlsClientConfig") or {}
    if not isinstance(tls, dict):
        raise InvalidClusterSecret(f"{where}: config.tlsClientConfig must be an object")
    insecure = tls.get("insecure", False)
    if not isinstance(insecure, bool):
        raise InvalidClusterSecret(f"{where}: config.tlsClientConfig.insecure must be true or false")
    server_name = tls.get("serverName") or ""
    if not isinstance(server_name, str) or len(server_name) > MAX_NAME or _CONTROL_OR_SPACE.search(server_name):
        raise InvalidClusterSecret(
            f"{where}: config.tlsClientConfig.serverName must be a host name (a string of at most {MAX_NAME} "
            "characters without spaces or control characters)"
        )
    proxy_url = _str_field(cfg, "proxyUrl", where)
    if _CONTROL_OR_SPACE.search(proxy_url):
        raise InvalidClusterSecret(f"{where}: config.proxyUrl holds a control character or a space")
    return Credentials(
        bearer_token=_str_field(cfg, "bearerToken", where, header=True),
        username=_str_field(cfg, "username", where),
        password=_str_field(cfg, "password", where),
        ca_pem=_pem(tls, "caData", where),
        cert_pem=_pem(tls, "certData", where),
        key_pem=_pem(tls, "keyData", where),
        insecure=insecure,
        server_name=server_name,
        proxy_url=proxy_url,
        exec_plugin=exec_plugin(cfg, where),
        fingerprint=fingerprint,
    )


def exec_plugin(cfg: Mapping[str, Any], where: str) -> ExecPlugin | None:
    """The exec plugin of a ``config``, as Argo CD's ``RawRestConfig`` picks it: ``awsAuthConfig`` when
    present (``argocd-k8s-auth aws --cluster-name X [--role-arn Y] [--profile Z]``, v1beta1), else
    ``execProviderConfig``; None for static credentials. Every value is checked here; whether the command
    may run is the prober's decision (its allowed list)."""
    if cfg.get("awsAuthConfig") is not None:
        aws = _auth_kind(cfg, "awsAuthConfig", where)
        cluster = _exec_text(aws.get("clusterName"), where, "awsAuthConfig.clusterName", MAX_NAME)
        if not cluster:
            raise InvalidClusterSecret(f"{where}: config.awsAuthConfig.clusterName is missing")
        args = ["aws", "--cluster-name", cluster]
        for key, flag in (("roleARN", "--role-arn"), ("profile", "--profile")):
            value = _exec_text(aws.get(key), where, f"awsAuthConfig.{key}", _MAX_ARG)
            if value:
                args += [flag, value]
        return ExecPlugin(AWS_AUTH_COMMAND, tuple(args))
    if cfg.get("execProviderConfig") is None:
        return None
    conf = _auth_kind(cfg, "execProviderConfig", where)
    command = _exec_text(conf.get("command"), where, "execProviderConfig.command", _MAX_ARG)
    if not command:
        raise InvalidClusterSecret(f"{where}: config.execProviderConfig.command is missing")
    args_value = conf.get("args") or []
    if not isinstance(args_value, list) or len(args_value) > _MAX_ARGS:
        raise InvalidClusterSecret(
            f"{where}: config.execProviderConfig.args must be a list of at most {_MAX_ARGS} strings"
        )
    argv = tuple(_exec_text(a, where, "execProviderConfig.args", _MAX_ARG, empty=True) for a in args_value)
    env_value = _map(conf.get("env"), where, "config.execProviderConfig.env")
    if len(env_value) > _MAX_ARGS:
        raise InvalidClusterSecret(f"{where}: config.execProviderConfig.env has more than {_MAX_ARGS} entries")
    env = []
    for name, value in sorted(env_value.items()):
        if not isinstance(name, str) or not _ENV_NAME.fullmatch(name):
            raise InvalidClusterSecret(f"{where}: config.execProviderConfig.env names a variable badly")
        env.append((name, _exec_text(value, where, f"execProviderConfig.env.{name}", _MAX_ARG, empty=True)))
    api_version = _exec_text(conf.get("apiVersion"), where, "execProviderConfig.apiVersion", MAX_NAME)
    if api_version not in EXEC_API_VERSIONS:
        raise InvalidClusterSecret(
            f"{where}: config.execProviderConfig.apiVersion must be one of {', '.join(EXEC_API_VERSIONS)}"
        )
    hint = _exec_text(conf.get("installHint"), where, "execProviderConfig.installHint", _MAX_ARG, empty=True)
    return ExecPlugin(command, argv, tuple(env), api_version, _one_line(hint))


def _exec_text(value: Any, where: str, path: str, limit: int, *, empty: bool = False) -> str:
    """A string of an exec plugin's config: bounded, no NUL (an argv or environment entry cannot hold
    one); never quoted in the message (an argument may be a secret)."""
    if value is None and empty:
        return ""
    if value is None:
        value = ""
    if not isinstance(value, str) or len(value) > limit or "\x00" in value:
        raise InvalidClusterSecret(f"{where}: config.{path} must be a string of at most {limit} characters")
    return value


def _one_line(text: str) -> str:
    return _CONTROL.sub(" ", text).strip()


def _strings(value: Any, where: str, path: str) -> dict[str, str]:
    return {str(k): str(v) for k, v in _map(value, where, path).items()}


def _identity(obj: SecretWire, where: str) -> tuple[ClusterIdentity, _Values, Mapping[str, Any]]:
    meta = _map(obj.get("metadata"), where, "metadata")
    secret_name = meta.get("name") or ""
    if not secret_name or not isinstance(secret_name, str):
        raise InvalidClusterSecret(f"{where}: metadata.name is missing")
    values = _Values(obj, where)
    name = _text(values.get("name").strip(), where, "name", MAX_NAME)
    server = _text(values.get("server").strip().rstrip("/"), where, "server", MAX_SERVER, spaces=False)
    if not name:
        raise InvalidClusterSecret(f"{where}: data.name is missing")
    if not server:
        raise InvalidClusterSecret(f"{where}: data.server is missing")
    if not server.startswith(("https://", "http://")):
        raise InvalidClusterSecret(f"{where}: data.server is not an http(s) URL")
    # The Secret's own annotations, unfiltered: Argo CD's Cluster generator passes them through as
    # metadata.annotations, and our parameters must be a drop-in superset.
    annotations = _strings(meta.get("annotations"), where, "metadata.annotations")
    identity = ClusterIdentity(secret_name, str(meta.get("namespace") or ""), name, server, annotations)
    return identity, values, meta


def _where(obj: SecretWire, where: str) -> str:
    if where:
        return where
    meta = obj.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    return f"Secret {meta.get('namespace') or ''}/{meta.get('name') or ''}"


def parse_identity(obj: SecretWire, *, where: str = "") -> ClusterIdentity:
    """Only the name and the server of a cluster Secret (``InvalidClusterSecret`` when either is bad):
    enough to match destinations when the credentials do not parse."""
    return _identity(obj, _where(obj, where))[0]


def parse_secret(obj: SecretWire, *, where: str = "") -> ClusterSecret:
    """Parse one cluster Secret; ``InvalidClusterSecret`` names the Secret and the bad field."""
    where = _where(obj, where)
    identity, values, meta = _identity(obj, where)
    credentials = parse_config(values.get("config"), where)
    try:
        expires = earliest_expiry(
            ("config.tlsClientConfig.caData", credentials.ca_pem),
            ("config.tlsClientConfig.certData", credentials.cert_pem),
        )
        ca_pem = credentials.ca_pem and canonical_bundle(credentials.ca_pem, what="config.tlsClientConfig.caData")
    except CertificateError as exc:
        raise InvalidClusterSecret(f"{where}: {exc}") from exc
    project = _text(values.get("project").strip(), where, "project", MAX_NAME)
    namespaces = [_text(n.strip(), where, "namespaces", MAX_NAME) for n in values.get("namespaces").split(",")]
    return ClusterSecret(
        secret_name=identity.secret_name,
        namespace=identity.namespace,
        name=identity.name,
        server=identity.server,
        uid=str(meta.get("uid") or ""),
        resource_version=str(meta.get("resourceVersion") or ""),
        project=project,
        namespaces=tuple(n for n in namespaces if n),
        cluster_resources=values.get("clusterResources") == "true",
        # the Secret's own labels, unfiltered, as Argo CD's Cluster generator passes them through
        labels=_strings(meta.get("labels"), where, "metadata.labels"),
        annotations=identity.annotations,
        credentials=replace(credentials, ca_pem=ca_pem),
        certificate_expires_at=expires,
    )


@dataclass(frozen=True)
class SkippedSecret:
    """A cluster Secret a reader could not use: why, and which cluster it names when that still parses."""

    problem: str
    identity: ClusterIdentity | None = None

    @property
    def note(self) -> str:
        return f"cluster Secret skipped: {self.problem}"


def scan_cluster_secrets(
    objects: Iterable[tuple[Mapping[str, Any], str]],
) -> tuple[list[ClusterSecret], list[SkippedSecret]]:
    """Parse the cluster Secrets among ``(object, where)`` (other Secrets are skipped unread); an unusable
    one is skipped, with its reason and, when they parse, its name and server."""
    found: list[ClusterSecret] = []
    skipped: list[SkippedSecret] = []
    for obj, where in objects:
        wire = cast(SecretWire, obj)
        if not is_cluster_secret(wire):
            continue
        try:
            found.append(parse_secret(wire, where=where))
        except InvalidClusterSecret as exc:
            try:
                identity: ClusterIdentity | None = parse_identity(wire, where=where)
            except InvalidClusterSecret:
                identity = None
            skipped.append(SkippedSecret(exc.message, identity))
    return found, skipped


def read_cluster_secrets(
    objects: Iterable[tuple[Mapping[str, Any], str]],
) -> tuple[list[ClusterSecret], list[str]]:
    """Parse the cluster Secrets among ``(object, where)`` (other Secrets are skipped unread); an unusable
    one is skipped with a note, as a reader of files or lists must not fail on one bad Secret."""
    found, skipped = scan_cluster_secrets(objects)
    return found, [s.note for s in skipped]
