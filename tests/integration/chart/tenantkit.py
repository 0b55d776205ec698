"""The tenants' stories on the real kube-apiserver: the real generator started with the chart's argv for
given values, as its ServiceAccount, and a tenant's ApplicationSet ``web`` with the Application it made
for the cluster ``self``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.harness import paths
from tests.harness.platform import register_node
from tests.harness.procs import Process, Supervisor, free_port
from tests.integration.chart.chartkit import one, render
from tests.integration.chart.realapi import NAMESPACE, RealApi

ACCOUNT = "argocd-lifecycle-generator"
API = "argoproj.io/v1alpha1"
LEASE = "argocd-lifecycle-generator"


@dataclass
class Generator:
    sup: Supervisor
    proc: Process
    url: str
    token: str

    def ask(self, **parameters: Any) -> httpx.Response:
        """Argo CD's request for ``web`` with these input parameters."""
        body = {"applicationSetName": "web", "input": {"parameters": parameters}}
        return httpx.post(self.url, json=body, headers={"Authorization": f"Bearer {self.token}"}, timeout=10)


def fresh_election(api: RealApi, node: str) -> None:
    """No Lease left by an earlier story (the new generator leads at once) and a node to count."""
    api.admin.delete("coordination.k8s.io/v1", "Lease", LEASE, NAMESPACE)
    if api.admin.get("v1", "Node", node) is None:
        register_node(api.cluster.api_client(), node)


def start_generator(api: RealApi, sets: tuple[str, ...], folder: Path, identity: str) -> Generator:
    token = f"plugin-token-for-{identity}"
    (folder / "token").write_text(token)
    port = free_port()
    sup = Supervisor(folder / "logs")
    proc = sup.start("generator", tenant_args(sets, folder / "token", api.kubeconfig_for(ACCOUNT), port, identity))
    return Generator(sup, proc, f"http://127.0.0.1:{port}/api/v1/getparams.execute", token)


def tenant_args(sets: tuple[str, ...], token_file: Path, kubeconfig: Path, port: int, identity: str) -> list[str]:
    """The Deployment's argv for ``sets``, listening on one loopback port, faster than in production."""
    args = list(one(render(sets=sets), "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"])
    first = args.index("--listen")
    del args[first : first + 4]  # the pod's IP and loopback: one loopback port here
    args.remove("--in-cluster")  # not in a pod: no KUBERNETES_SERVICE_HOST to probe the management cluster by
    for flag, value in (("--token-file", str(token_file)), ("--identity", identity), ("--probe-interval", "1s"),
                        ("--ready-after", "1")):  # fmt: skip
        args[args.index(flag) + 1] = value
    return [str(paths.our_cli()), *args, "--listen", f"127.0.0.1:{port}", "--kubeconfig", str(kubeconfig)]


def apply_web(api: RealApi, tenant: str) -> None:
    """``tenant/web`` (project ``tenant``, the plugin generator) and its Application ``web-self``."""
    appset = api.admin.apply({
        "apiVersion": API, "kind": "ApplicationSet", "metadata": {"name": "web", "namespace": tenant},
        "spec": {"generators": [{"plugin": {"configMapRef": {"name": ACCOUNT}}}],
                 "template": {"metadata": {"name": "web-{{name}}"},
                              "spec": {"project": tenant,
                                       "source": {"repoURL": "https://git.example/apps", "path": "web"},
                                       "destination": {"server": "{{server}}", "namespace": "web"}}}},
    })  # fmt: skip
    owner = {"apiVersion": API, "kind": "ApplicationSet", "name": "web", "uid": appset["metadata"]["uid"]}
    api.admin.apply({
        "apiVersion": API, "kind": "Application",
        "metadata": {"name": "web-self", "namespace": tenant, "ownerReferences": [owner]},
        "spec": {"project": tenant, "source": {"repoURL": "https://git.example/apps", "path": "web"},
                 "destination": {"server": api.cluster.server, "namespace": "web"}},
    })  # fmt: skip
