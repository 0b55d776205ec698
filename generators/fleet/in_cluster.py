"""The management cluster as its own pods reach it, for Argo CD's ``in-cluster`` entry.

Argo CD talks to ``https://kubernetes.default.svc`` with ``rest.InClusterConfig()``: the address in
``KUBERNETES_SERVICE_HOST``/``KUBERNETES_SERVICE_PORT``, the ServiceAccount's CA and token from the
folder the kubelet mounts, the token read again as the kubelet rotates it (client-go rereads the file
at most once a minute). The probe does the same, with the generator's own ServiceAccount.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass

from argocd_lifecycle.cluster_secrets import Credentials
from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.kube.client import Kube, KubeError

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
#: Argo CD's settings ConfigMap and the key that turns its implicit in-cluster entry off
ARGOCD_CM = "argocd-cm"
IN_CLUSTER_ENABLED = "cluster.inClusterEnabled"
#: client-go's cached file token source rereads the token this often (seconds)
TOKEN_REREAD = 60.0
_MAX_FILE = 1024 * 1024


class InClusterError(UsageError):
    """The pod cannot reach its own cluster as Argo CD would (no Service address, no token or CA)."""


@dataclass(frozen=True)
class InCluster:
    """Where the pod's API server and ServiceAccount are: read from the environment at start-up."""

    host: str = ""
    port: str = ""
    folder: str = SERVICE_ACCOUNT_DIR

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], folder: str = SERVICE_ACCOUNT_DIR) -> InCluster:
        return cls(environ.get("KUBERNETES_SERVICE_HOST", ""), environ.get("KUBERNETES_SERVICE_PORT", ""), folder)

    def server(self) -> str:
        if not self.host or not self.port:
            raise InClusterError(
                "in-cluster: KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are not set (not running in a pod)"
            )
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"https://{host}:{self.port}"

    def check(self) -> None:
        """At start-up: the address, CA and token a probe of the in-cluster entry needs are there."""
        self.server()
        self.credentials()
        PodToken(self).get()

    def credentials(self) -> Credentials:
        return Credentials(ca_pem=self.read("ca.crt"))

    def read(self, name: str) -> bytes:
        path = os.path.join(self.folder, name)
        try:
            with open(path, "rb") as fh:
                data = fh.read(_MAX_FILE + 1)
        except OSError as exc:
            raise InClusterError(
                f"in-cluster: cannot read the ServiceAccount's {name} ({os.strerror(exc.errno or 0)}; "
                "is automountServiceAccountToken off?)"
            ) from exc
        if len(data) > _MAX_FILE:
            raise InClusterError(f"in-cluster: the ServiceAccount's {name} is larger than 1 MiB")
        return data


class PodToken:
    """The ServiceAccount token, reread at most once a minute (the kubelet rotates it)."""

    def __init__(self, where: InCluster) -> None:
        self.where = where
        self._token = ""
        self._read_at: float | None = None

    def get(self) -> str:
        now = time.monotonic()
        if self._read_at is None or now - self._read_at >= TOKEN_REREAD:
            text = self.where.read("token").decode("utf-8", "replace").strip()
            if not text or any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
                raise InClusterError("in-cluster: the ServiceAccount's token is empty or not a header value")
            self._token, self._read_at = text, now
        return self._token


def in_cluster_enabled(kube: Kube, namespace: str) -> bool:
    """Argo CD's ``cluster.inClusterEnabled`` in argocd-cm, read at start-up: on unless it is ``"false"``
    (Argo CD's own reading; no argocd-cm is its default, on). A ConfigMap that cannot be read is an error:
    listing the management cluster, or not, on a guess would be answering as if all were well."""
    try:
        found = kube.call(
            f"read ConfigMap {namespace}/{ARGOCD_CM}", kube.core.read_namespaced_config_map, ARGOCD_CM, namespace
        )
    except KubeError as exc:
        if exc.status == 404:
            return True
        raise InClusterError(
            f"--in-cluster: {exc.message} (the chart's generator Role grants get on ConfigMap {ARGOCD_CM}; "
            "or run with --no-in-cluster)"
        ) from exc
    data = found.get("data") if isinstance(found, dict) else None
    value = data.get(IN_CLUSTER_ENABLED) if isinstance(data, dict) else None
    return value != "false"
