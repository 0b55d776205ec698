"""Our half of the loop, started like an operator would: `receiver serve`, `generator serve`, the catalog.

The receiver delivers to the loopback sink: Argo CD alerts to ``/alerts``, lifecycle transitions (posted
by the generator) to ``/lifecycle``, so a test can count each kind on its own.
"""

from __future__ import annotations

import json
import secrets
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from . import argocd, capi
from .argocd import http_ok
from .platform import Platform
from .procs import HarnessError, free_port
from .sink import Sink

GENERATOR_NAME = "argocd-lifecycle-generator"  # plugin ConfigMap and token Secret, as in the chart
WEBHOOK_SERVICE = "argocd-lifecycle"
LIFECYCLE_REASONS = [
    "ClusterRegistered", "ClusterReady", "ClusterUpgradeStarted", "ClusterUpgraded", "ClusterScaled",
    "ClusterDegraded", "ClusterUnreachable", "ClusterRecovered", "ClusterCredentialsRotated",
    "ClusterCertificateExpiring", "ClusterDecommissioning", "ClusterRemoved",
]  # fmt: skip


def _secret_file(path: Path, value: str) -> Path:
    path.write_text(value)
    path.chmod(0o600)
    return path


@dataclass(frozen=True)
class Receiver:
    url: str
    token: str = field(repr=False)
    hmac_file: Path  # the lifecycle secret
    external_hmac_file: Path  # the external secret (the generator's held answers)

    def generator_flags(self) -> list[str]:
        """What `generator serve` needs to post to this receiver."""
        return ["--receiver-url", f"{self.url}/v1/events/lifecycle", "--receiver-secret-file", str(self.hmac_file),
                "--receiver-external-secret-file", str(self.external_hmac_file)]  # fmt: skip


#: the tenant with a receiver route of its own, and where the sink records what it is sent
TEAM_A, TEAM_A_PATH = argocd.TENANTS[0], "/team-a"


def start_receiver(platform: Platform, sink: Sink, *, name: str = "receiver") -> Receiver:
    """``name`` is its folder and process name (a second receiver keeps its own state)."""
    folder = platform.scratch / name
    folder.mkdir(exist_ok=True)
    token = secrets.token_urlsafe(24)
    _secret_file(folder / "token", token)
    hmac_file = _secret_file(folder / "hmac", secrets.token_urlsafe(32))
    external_hmac_file = _secret_file(folder / "external-hmac", secrets.token_urlsafe(32))
    _secret_file(folder / "sink-secret", secrets.token_urlsafe(32))
    port = free_port()
    config = {
        "inbound": {"tokenFile": "token", "lifecycleSecretFile": "hmac", "externalSecretFile": "external-hmac"},
        "receivers": [
            {"name": "alerts", "type": "webhook", "url": f"{sink.url}/alerts", "secretFile": "sink-secret"},
            {"name": "lifecycle", "type": "webhook", "url": f"{sink.url}/lifecycle", "secretFile": "sink-secret"},
            {"name": "team-a", "type": "webhook", "url": f"{sink.url}{TEAM_A_PATH}", "secretFile": "sink-secret"},
        ],
        # a tenant's own destination: what is about team-a's ApplicationSets and Applications goes to it alone
        "routes": [
            {"match": {"trigger": LIFECYCLE_REASONS}, "receiver": "lifecycle"},
            {"match": {"namespace": [TEAM_A]}, "receiver": "team-a"},
            {"receiver": "alerts"},
        ],
        # a short storm window keeps the test quick; the collapse itself is what is checked
        "storm": {"groupWait": "2s", "groupInterval": "60s"},
        "delivery": {"initialBackoff": "1s", "maxBackoff": "5s"},
    }
    (folder / "config.yaml").write_text(yaml.safe_dump(config))
    argv = [str(platform.binaries.cli), "receiver", "serve", "--config", str(folder / "config.yaml"),
            "--listen", f"127.0.0.1:{port}", "--state", f"sqlite:///{folder / 'state.db'}"]  # fmt: skip
    proc = platform.sup.start(name, argv)
    platform.sup.wait_ready(proc, lambda: http_ok(f"http://127.0.0.1:{port}/healthz"), timeout=30)
    return Receiver(f"http://127.0.0.1:{port}", token, hmac_file, external_hmac_file)


def install_catalog(platform: Platform, receiver: Receiver) -> None:
    """Our catalog as argocd-notifications-cm, its webhook service pointed at the receiver."""
    try:
        out = subprocess.run(
            [str(platform.binaries.cli), "notifications", "render", "--format", "configmap"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
    except subprocess.CalledProcessError as exc:
        raise HarnessError(f"`argocd-lifecycle notifications render` failed: {exc.stderr.strip()}") from exc
    cm = yaml.safe_load(out.stdout)
    cm["metadata"]["namespace"] = argocd.NAMESPACE
    cm["data"][f"service.webhook.{WEBHOOK_SERVICE}"] = yaml.safe_dump({
        "url": receiver.url,
        "headers": [
            {"name": "Content-Type", "value": "application/json"},
            {"name": "Authorization", "value": f"Bearer ${WEBHOOK_SERVICE}-token"},
        ],
    })  # fmt: skip
    platform.mgmt.apply(cm)
    platform.mgmt.apply({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "argocd-notifications-secret", "namespace": argocd.NAMESPACE},
        "stringData": {f"{WEBHOOK_SERVICE}-token": receiver.token},
    })  # fmt: skip


#: the exec credential plugin the loop's downstream cluster Secret names (allowed by name, run from its folder)
EXEC_PLUGIN = "e2e-credential"


def exec_plugin(platform: Platform) -> Path:
    """An exec credential plugin for the downstream cluster, as a cloud's would be: it prints an
    ExecCredential (v1) holding the downstream admin's client certificate, and notes each run. The
    generator's prober and Argo CD's controllers both run it (client-go's exec protocol)."""
    folder = platform.scratch / "exec-plugins"
    folder.mkdir(exist_ok=True)
    down = platform.downstream
    tls = down.argocd_cluster_config()["tlsClientConfig"]
    assert isinstance(tls, dict)
    credential = {
        "apiVersion": "client.authentication.k8s.io/v1",
        "kind": "ExecCredential",
        "status": {
            "clientCertificateData": down.admin.cert_pem.decode(),
            "clientKeyData": down.admin.key_pem.decode(),
        },
    }
    answer = _secret_file(folder / "credential.json", json.dumps(credential))
    plugin = folder / EXEC_PLUGIN
    plugin.write_text(f"#!/bin/sh\necho run >> {folder / 'runs.log'}\nexec cat {answer}\n")
    plugin.chmod(0o700)
    return plugin


def start_generator(platform: Platform, receiver: Receiver | None) -> str:
    """`generator serve` against the management API, and the plugin ConfigMap + token Secret Argo CD reads."""
    folder = platform.scratch / "generator"
    folder.mkdir(exist_ok=True)
    token = secrets.token_urlsafe(24)
    token_file = _secret_file(folder / "token", token)
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    labels = {"app.kubernetes.io/part-of": "argocd"}
    platform.mgmt.apply({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": GENERATOR_NAME, "namespace": argocd.NAMESPACE, "labels": labels},
        "stringData": {"token": token},
    })  # fmt: skip
    platform.mgmt.apply({
        "apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": GENERATOR_NAME, "namespace": argocd.NAMESPACE},
        "data": {"baseUrl": base_url, "token": f"${GENERATOR_NAME}:token", "requestTimeout": "10"},
    })  # fmt: skip
    argv = [
        str(platform.binaries.cli), "generator", "serve",
        "--kubeconfig", str(platform.management.kubeconfig), "--namespace", argocd.NAMESPACE,
        "--listen", f"127.0.0.1:{port}", "--token-file", str(token_file),
        "--probe-interval", "1s", "--probe-timeout", "2s", "--ready-after", "2", "--unreachable-after", "2",
        "--plugin-configmap", GENERATOR_NAME, "--no-leader-election", *capi.GENERATOR_FLAGS,
        "--exec-allow", EXEC_PLUGIN, "--exec-plugin-dir", str(exec_plugin(platform).parent),
    ]  # fmt: skip
    if receiver is not None:
        argv += receiver.generator_flags()
    proc = platform.sup.start("generator", argv)
    platform.sup.wait_ready(proc, lambda: http_ok(f"{base_url}/healthz"), timeout=30)
    return base_url
