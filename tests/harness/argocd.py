"""Argo CD v3.2.11 outside a cluster: its CRDs and base config, then each component as its own process.

Every component is the one multi-call `argocd` binary, picked with ARGOCD_BINARY_NAME; KUBECONFIG points
at the management cluster (context namespace `argocd`) and ARGOCD_FAKE_IN_CLUSTER makes
https://kubernetes.default.svc mean that cluster too.
"""

from __future__ import annotations

import base64
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

import httpx

from . import image, paths
from .kubeapi import Cluster
from .objects import Kube, load_documents
from .procs import Process, Supervisor, free_port, wait_until

NAMESPACE = "argocd"
#: the tenants' namespaces: Argo CD is started with Applications and ApplicationSets allowed in them
TENANTS = ("team-a", "team-b")
PLUGIN_SOCKET = "argocd-lifecycle-v1.sock"


def tcp_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def install(kube: Kube, source: Path) -> None:
    """CRDs, base config (labelled part-of: argocd), stock notifications cm/secret, AppProject default
    (its Applications may live in the tenants' namespaces too)."""
    for namespace in (NAMESPACE, *TENANTS):
        kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    crds = [p for p in sorted((source / "manifests" / "crds").glob("*.yaml")) if p.name != "kustomization.yaml"]
    names = [kube.apply(doc)["metadata"]["name"] for doc in load_documents(crds)]

    def established() -> bool:
        for name in names:
            crd = kube.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", name) or {}
            conditions = (crd.get("status") or {}).get("conditions") or []
            if not any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
                return False
        return True

    wait_until(established, timeout=60, what="Argo CD CRDs to be established")
    kube.refresh_discovery()
    config = [
        p for p in sorted((source / "manifests" / "base" / "config").glob("*.yaml")) if p.name != "kustomization.yaml"
    ]
    notification = source / "manifests" / "base" / "notification"
    stock = [notification / "argocd-notifications-cm.yaml", notification / "argocd-notifications-secret.yaml"]
    for doc in load_documents([*config, *stock]):
        kube.apply(doc, namespace=NAMESPACE)
    # argocd-server would generate this key on first start; the controllers refuse to work without it
    secret_key = base64.b64encode(secrets.token_bytes(32)).decode()
    kube.apply(
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "argocd-secret", "namespace": NAMESPACE},
            "data": {"server.secretkey": base64.b64encode(secret_key.encode()).decode()},
        }
    )
    kube.apply(
        {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "AppProject",
            "metadata": {"name": "default", "namespace": NAMESPACE},
            "spec": {
                "sourceRepos": ["*"],
                "destinations": [{"server": "*", "namespace": "*"}],
                "clusterResourceWhitelist": [{"group": "*", "kind": "*"}],
                "sourceNamespaces": list(TENANTS),
            },
        }
    )


@dataclass(frozen=True)
class ArgoEnv:
    binary: Path
    management: Cluster
    state: Path  # scratch folder: sockets, TLS/SSH/GnuPG data, the CMP sidecar's folders
    redis: str  # 127.0.0.1:port
    path: str  # PATH of the Argo CD components: our CLI, helm, kustomize, git

    def env(self, component: str, **extra: str) -> dict[str, str]:
        return {
            "ARGOCD_BINARY_NAME": component,
            "KUBECONFIG": str(self.management.kubeconfig),
            "ARGOCD_FAKE_IN_CLUSTER": "true",
            "ARGOCD_GPG_ENABLED": "false",
            "ARGOCD_TLS_DATA_PATH": str(self.state / "tls"),
            "ARGOCD_SSH_DATA_PATH": str(self.state / "ssh"),
            "ARGOCD_GNUPGHOME": str(self.state / "gnupg"),
            "ARGOCD_PLUGINSOCKFILEPATH": str(self.state / "plugins"),
            "PATH": self.path,
            **extra,
        }


def flags(options: dict[str, str | None]) -> list[str]:
    """``{"port": "1", "disable-tls": None}`` -> ``["--port", "1", "--disable-tls"]``."""
    argv: list[str] = []
    for name, value in options.items():
        argv += [f"--{name}"] if value is None else [f"--{name}", value]
    return argv


def logged(proc: Process, text: str) -> bool:
    return text in proc.log_path.read_text(errors="replace")


def http_ok(url: str) -> bool:
    return httpx.get(url, timeout=2).status_code == 200


def start_redis(sup: Supervisor, binary: Path) -> str:
    port = free_port()
    argv = [str(binary), *flags({"port": str(port), "bind": "127.0.0.1", "save": "", "appendonly": "no"})]
    proc = sup.start("redis", argv)
    sup.wait_ready(proc, lambda: tcp_open(port), timeout=20)
    return f"127.0.0.1:{port}"


def start_cmp_server(sup: Supervisor, env: ArgoEnv) -> None:
    """The sidecar from the image (`make image`): Argo CD's cmp-server serving the image's plugin.yaml
    with the image's CLI, helm and kustomize, as uid 999 on a read-only root (image.start_sidecar)."""
    proc = image.start_sidecar(sup, env.binary, env.state, env.state / "plugins")
    sup.wait_ready(proc, (env.state / "plugins" / PLUGIN_SOCKET).exists, timeout=60)


def start_repo_server(sup: Supervisor, env: ArgoEnv) -> str:
    port = free_port()
    options = {
        "address": "127.0.0.1",
        "port": str(port),
        "metrics-address": "127.0.0.1",
        "metrics-port": str(free_port()),
        "disable-tls": None,
        "redis": env.redis,
        "loglevel": "info",
    }
    if paths.argocd_release().at_least("v3.5"):
        # from v3.5 --client-ca-path defaults to the mounted mTLS Secret's path and is refused beside
        # --disable-tls, even when no file is there: cleared, as a plaintext repo-server needs
        options["client-ca-path"] = ""
    proc = sup.start("repo-server", [str(env.binary), *flags(options)], env=env.env("argocd-repo-server"))
    sup.wait_ready(proc, lambda: tcp_open(port), timeout=60)
    return f"127.0.0.1:{port}"


def start_application_controller(sup: Supervisor, env: ArgoEnv, repo_server: str, *, resync: int) -> None:
    # --metrics-port binds 0.0.0.0 upstream (there is no address flag); the port is a random free one
    metrics = free_port()
    options = {
        "repo-server": repo_server,
        "repo-server-plaintext": None,
        "redis": env.redis,
        "metrics-port": str(metrics),
        "app-resync": str(resync),
        "app-resync-jitter": "0",
        # Applications in any namespace (Argo CD's application.namespaces): the tenants' namespaces
        "application-namespaces": ",".join(TENANTS),
        "status-processors": "2",
        "operation-processors": "2",
        "loglevel": "info",
    }
    argv = [str(env.binary), *flags(options)]
    proc = sup.start("application-controller", argv, env=env.env("argocd-application-controller"))
    sup.wait_ready(proc, lambda: http_ok(f"http://127.0.0.1:{metrics}/healthz"), timeout=60)


def start_applicationset_controller(sup: Supervisor, env: ArgoEnv, repo_server: str) -> None:
    options = {
        "argocd-repo-server": repo_server,
        "repo-server-plaintext": None,
        "metrics-addr": f"127.0.0.1:{free_port()}",
        "probe-addr": f"127.0.0.1:{free_port()}",
        "webhook-addr": f"127.0.0.1:{free_port()}",
        # ApplicationSets in any namespace (applicationsetcontroller.namespaces): its own and the tenants';
        # more than one namespace needs the SCM providers off (or an allow-list)
        "applicationset-namespaces": ",".join((NAMESPACE, *TENANTS)),
        "enable-scm-providers=false": None,
        "loglevel": "info",
    }
    argv = [str(env.binary), *flags(options)]
    proc = sup.start("applicationset-controller", argv, env=env.env("argocd-applicationset-controller"))
    # no readiness check is registered on its probe address (404): wait for the workers instead
    sup.wait_ready(proc, lambda: logged(proc, "Starting workers"), timeout=60)


def start_notifications_controller(sup: Supervisor, env: ArgoEnv, repo_server: str) -> None:
    # --metrics-port binds 0.0.0.0 upstream (there is no address flag); the port is a random free one
    metrics = free_port()
    options = {
        "argocd-repo-server": repo_server,
        "argocd-repo-server-plaintext": None,
        "metrics-port": str(metrics),
        "loglevel": "info",
    }
    argv = [str(env.binary), *flags(options)]
    proc = sup.start("notifications-controller", argv, env=env.env("argocd-notifications"))
    sup.wait_ready(proc, lambda: tcp_open(metrics), timeout=60)


#: scripts Argo CD's image installs in /usr/local/bin: from v3.6 the repo-server runs git-verify-wrapper.sh
#: for every manifest generation, GnuPG on or off
IMAGE_SCRIPTS = ("git-verify-wrapper.sh", "gpg-wrapper.sh")


def scratch_dirs(state: Path, source: Path) -> Path:
    """The components' scratch folders, and a bin folder (returned, for PATH) holding the image's scripts
    from the release's module ``source`` (hack/), made executable: the module cache keeps no modes."""
    for sub in ("tls", "ssh", "gnupg", "plugins", "bin"):
        (state / sub).mkdir(parents=True, exist_ok=True)
    os.chmod(state / "gnupg", 0o700)
    for script in IMAGE_SCRIPTS:
        if (source / "hack" / script).is_file():
            (state / "bin" / script).write_bytes((source / "hack" / script).read_bytes())
            os.chmod(state / "bin" / script, 0o755)
    return state / "bin"
