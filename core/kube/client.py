"""The only module that imports ``kubernetes``: client construction and error translation.

Callers get a ``Kube`` (the API groups bound to one client) from ``connect`` and call the official
client through ``call``/``call_json``, which turn the client's and urllib3's errors into ``KubeError``
subclasses naming what was attempted. Responses are read as plain JSON (wire dicts), never as the
client's models, so callers type them with their own TypedDicts.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException
from urllib3.exceptions import HTTPError

from argocd_lifecycle.cluster_secrets import Credentials
from argocd_lifecycle.errors import ConfigError, LifecycleError

MERGE_PATCH = "application/merge-patch+json"
# the client's watch and config modules carry no type hints
_watch: Any = watch
_config: Any = config


class KubeError(LifecycleError):
    """A Kubernetes API call failed (status is the HTTP status, or None for transport errors)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class KubeGone(KubeError):
    """410 Gone: the resourceVersion expired; list again."""


class KubeConflict(KubeError):
    """409: the object changed under us, or already exists."""


class KubeNotFound(KubeError):
    """404."""


_BY_STATUS: dict[int, type[KubeError]] = {404: KubeNotFound, 409: KubeConflict, 410: KubeGone}


def _status_message(exc: ApiException) -> str:
    """The API's own ``Status.message`` when the body carries one, else the HTTP reason."""
    body = exc.body
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str) and body.startswith("{"):
        try:
            message = json.loads(body).get("message")
        except ValueError:
            message = None
        if isinstance(message, str) and message:
            return message
    return str(exc.reason or "error")


def translate(exc: BaseException, what: str) -> KubeError:
    """One ``KubeError`` for any failure of the client, naming the attempted operation."""
    if isinstance(exc, KubeError):
        return exc
    if isinstance(exc, ApiException):
        status = int(exc.status) if exc.status else None
        cls = _BY_STATUS.get(status or 0, KubeError)
        return cls(f"{what}: HTTP {status}: {_status_message(exc)}", status=status)
    return KubeError(f"{what}: {type(exc).__name__}: {exc}")


@contextmanager
def translated(what: str) -> Iterator[None]:
    """Translate client/transport errors raised inside the block (``raise ... from``)."""
    try:
        yield
    except (ApiException, HTTPError, OSError, ValueError) as exc:
        raise translate(exc, what) from exc


@dataclass(frozen=True)
class KubeSettings:
    """How to reach the management cluster: a kubeconfig file, else in-cluster, else the default."""

    kubeconfig: str | None = None
    context: str | None = None
    #: per-request timeout (seconds) for everything but watches
    request_timeout: float = 10.0


class Kube:
    """The API groups this project uses, bound to one ``ApiClient``."""

    def __init__(self, api_client: Any, settings: KubeSettings) -> None:
        self.api_client = api_client
        self.settings = settings
        self.core = client.CoreV1Api(api_client)
        self.coordination = client.CoordinationV1Api(api_client)
        self.custom = client.CustomObjectsApi(api_client)

    @property
    def host(self) -> str:
        return str(self.api_client.configuration.host)

    def call(self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call an API method and return its raw JSON body as Python data (dict/list)."""
        kwargs.setdefault("_request_timeout", self.settings.request_timeout)
        with translated(what):
            resp = fn(*args, _preload_content=False, **kwargs)
            try:
                status = int(getattr(resp, "status", 200))
                data = resp.data
                if status >= 400:
                    raise ApiException(status=status, reason=getattr(resp, "reason", ""), body=data)
                return json.loads(data) if data else {}
            finally:
                resp.release_conn()

    def credentials(self) -> Credentials:
        """The credentials this client holds (from its kubeconfig or the pod), for a reader that talks to
        the same cluster through another HTTP client: a bearer token, a client certificate, the CA."""
        cfg = self.api_client.configuration
        auth = str((cfg.api_key or {}).get("authorization") or "")
        if cfg.refresh_api_key_hook is not None:
            cfg.refresh_api_key_hook(cfg)  # an exec plugin's or the pod's token, current
            auth = str((cfg.api_key or {}).get("authorization") or "")

        def read(path: str | None) -> bytes:
            with translated("read the kubeconfig's TLS files"):
                return Path(path).read_bytes() if path else b""

        return Credentials(
            bearer_token=auth.removeprefix("Bearer ").strip() if auth.startswith("Bearer ") else "",
            username=str(cfg.username or ""),
            password=str(cfg.password or ""),
            ca_pem=read(cfg.ssl_ca_cert),
            cert_pem=read(cfg.cert_file),
            key_pem=read(cfg.key_file),
            insecure=not cfg.verify_ssl,
            server_name=str(cfg.tls_server_name or ""),
        )

    def annotate_secret(self, namespace: str, name: str, annotations: Mapping[str, str | None]) -> None:
        """Merge-patch ``annotations`` onto Secret ``namespace/name`` (None removes a key): the keys not
        named, and the rest of the Secret, stay as they are, so writers of different keys never collide."""
        self.call(
            f"annotate Secret {namespace}/{name}",
            self.core.patch_namespaced_secret,
            name,
            namespace,
            {"metadata": {"annotations": dict(annotations)}},
            _content_type=MERGE_PATCH,
        )

    def watch(
        self, what: str, fn: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> Iterator[tuple[str, dict[str, Any]]]:
        """Stream ``(type, raw object)`` watch events; errors (410 included) raise ``KubeError``.

        ``timeout_seconds`` must be given: it makes the server end the watch, and it disables the
        client's own single 410 retry so that the caller relists instead.
        """
        if "timeout_seconds" not in kwargs:
            raise ValueError("watch needs timeout_seconds")
        w = _watch.Watch()
        try:
            with translated(what):
                for event in w.stream(fn, *args, **kwargs):
                    yield str(event["type"]), event["raw_object"]
        finally:
            w.stop()


def connect(settings: KubeSettings) -> Kube:
    """Build the client once, at start-up: explicit kubeconfig, in-cluster, or the default kubeconfig."""
    cfg = client.Configuration()
    try:
        if settings.kubeconfig:
            _config.load_kube_config(
                config_file=os.fspath(settings.kubeconfig), context=settings.context, client_configuration=cfg
            )
        elif os.environ.get("KUBERNETES_SERVICE_HOST"):
            _config.load_incluster_config(client_configuration=cfg)
        else:
            _config.load_kube_config(context=settings.context, client_configuration=cfg)
    except (ConfigException, OSError, ValueError, TypeError, yaml.YAMLError) as exc:
        if settings.kubeconfig:
            raise ConfigError(f"kubeconfig {settings.kubeconfig}: {exc}") from exc
        problem = f"no kubeconfig given, not in a cluster, and the default kubeconfig is unusable: {exc}"
        raise ConfigError(problem) from exc
    return Kube(client.ApiClient(cfg), settings)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def connect_cluster(
    server: str,
    *,
    bearer_token: str = "",
    username: str = "",
    password: str = "",
    ca_pem: bytes = b"",
    cert_pem: bytes = b"",
    key_pem: bytes = b"",
    insecure: bool = False,
    server_name: str = "",
    settings: KubeSettings | None = None,
) -> Kube:
    """A client for a cluster known by its Argo CD cluster Secret's server and credentials.

    Goes through the client's own kubeconfig loader (an in-memory kubeconfig), which keeps the PEM
    data in private temporary files as the kubeconfig path does. Credentials never reach errors.
    """
    cluster: dict[str, Any] = {"server": server}
    if insecure:
        cluster["insecure-skip-tls-verify"] = True
    elif ca_pem:
        cluster["certificate-authority-data"] = _b64(ca_pem)
    if server_name:
        cluster["tls-server-name"] = server_name
    user: dict[str, Any] = {}
    if bearer_token:
        user["token"] = bearer_token
    elif username or password:
        user.update(username=username, password=password)
    if cert_pem or key_pem:
        user.update({"client-certificate-data": _b64(cert_pem), "client-key-data": _b64(key_pem)})
    kubeconfig = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "destination", "cluster": cluster}],
        "users": [{"name": "destination", "user": user}],
        "contexts": [{"name": "destination", "context": {"cluster": "destination", "user": "destination"}}],
        "current-context": "destination",
    }
    cfg = client.Configuration()
    try:
        _config.load_kube_config_from_dict(kubeconfig, client_configuration=cfg)
    except (ConfigException, OSError, ValueError, TypeError) as exc:
        raise ConfigError(f"cluster {server}: unusable credentials ({type(exc).__name__})") from exc
    return Kube(client.ApiClient(cfg), settings or KubeSettings())
