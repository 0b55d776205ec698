"""The upstream half of the loop: etcd, two kube-apiservers, Redis and the Argo CD components."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kubernetes import client as k8s

from . import argocd, capi, kubeapi, paths
from .gitrepo import GitRepo
from .kubeapi import Cluster
from .objects import Kube
from .procs import Supervisor

KUBE_VERSION = "v1.34.2"
DOWNSTREAM_RUNTIME_CONFIG = "storage.k8s.io/v1beta1=true"
Progress = Callable[[str], None]


@dataclass(frozen=True)
class Binaries:
    etcd: Path
    kube_apiserver: Path
    argocd: Path
    redis: Path
    cli: Path

    @classmethod
    def find(cls) -> Binaries:
        """Every binary the loop needs, or one HarnessError naming what is missing and how to build it."""
        paths.system_binary("git", "git")
        paths.tool("helm")
        paths.tool("kustomize")
        return cls(
            paths.tool("etcd"),
            paths.tool("kube-apiserver"),
            paths.argocd(),
            paths.system_binary("redis-server", "redis-server"),
            paths.our_cli(),
        )


@dataclass
class Platform:
    sup: Supervisor
    scratch: Path
    binaries: Binaries
    management: Cluster
    downstream: Cluster
    mgmt: Kube
    down: Kube
    argo: argocd.ArgoEnv
    repo_server: str
    git: GitRepo
    timings: dict[str, float] = field(default_factory=dict)

    def stop_downstream(self) -> None:
        """SIGTERM the downstream kube-apiserver; it is reaped when started again (or at teardown)."""
        if self.downstream.process is not None:
            self.downstream.process.terminate()

    def start_downstream(self) -> None:
        kubeapi.stop(self.sup, self.downstream)  # waits for the old process to exit and free its port
        kubeapi.launch(self.sup, self.downstream)
        kubeapi.wait_ready(self.sup, self.downstream)

    def stop(self) -> None:
        self.sup.stop_all()


def register_node(api: k8s.ApiClient, name: str) -> None:
    """A Ready Node object: no kubelet runs here, but probes of node health and versions need one."""
    core = k8s.CoreV1Api(api)
    core.create_node({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}})
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    status = {
        "conditions": [
            {
                "type": "Ready",
                "status": "True",
                "reason": "KubeletReady",
                "message": "e2e harness",
                "lastHeartbeatTime": now,
                "lastTransitionTime": now,
            }
        ],
        "nodeInfo": {
            "kubeletVersion": KUBE_VERSION,
            "kubeProxyVersion": "",
            "machineID": "",
            "systemUUID": "",
            "bootID": "",
            "kernelVersion": "",
            "osImage": "",
            "containerRuntimeVersion": "",
            "operatingSystem": "linux",
            "architecture": "amd64",
        },
    }
    core.patch_node_status(name, {"status": status})


def start_platform(scratch: Path, log_dir: Path, progress: Progress, *, app_resync: int = 30) -> Platform:
    """Start everything upstream, in dependency order; on any failure stop what was started and re-raise."""
    binaries = Binaries.find()
    sup = Supervisor(log_dir)
    timings: dict[str, float] = {}

    def step(label: str, since: float) -> None:
        timings[label] = time.monotonic() - since
        progress(f"{label} ({timings[label]:.1f}s)")

    try:
        t = time.monotonic()
        _, etcd_url = kubeapi.start_etcd(sup, binaries.etcd, scratch)
        step("etcd ready", t)
        t = time.monotonic()
        management = kubeapi.new_cluster(
            "management",
            binaries.kube_apiserver,
            etcd_url,
            scratch / "management",
            namespace=argocd.NAMESPACE,
        )
        # the downstream cluster also serves a beta API that a later release removes (VolumeAttributesClass
        # storage.k8s.io/v1beta1, gone in 1.37): what the upgrade preflight scenario deploys
        downstream = kubeapi.new_cluster(
            "downstream",
            binaries.kube_apiserver,
            etcd_url,
            scratch / "downstream",
            runtime_config=DOWNSTREAM_RUNTIME_CONFIG,
        )
        for cluster in (management, downstream):
            kubeapi.launch(sup, cluster)
        for cluster in (management, downstream):
            kubeapi.wait_ready(sup, cluster)
        step("kube-apiservers ready (management and downstream)", t)
        mgmt = Kube(management.api_client(), scratch / "management" / "discovery.json")
        down = Kube(downstream.api_client(), scratch / "downstream" / "discovery.json")
        register_node(down.api_client, "downstream-node-1")

        t = time.monotonic()
        argocd.install(mgmt, paths.argocd_source())
        step("Argo CD CRDs, base config and AppProject default installed", t)
        t = time.monotonic()
        capi.install(management)
        step("Cluster API CRDs installed", t)

        t = time.monotonic()
        state = scratch / "argocd"
        scripts = argocd.scratch_dirs(state, paths.argocd_source())
        redis = argocd.start_redis(sup, binaries.redis)
        path = ":".join(
            [str(paths.VENV_BIN), str(paths.tools_bin()), str(scripts), "/usr/local/bin", "/usr/bin", "/bin"]
        )
        argo = argocd.ArgoEnv(binaries.argocd, management, state, redis, path)
        argocd.start_cmp_server(sup, argo)
        repo_server = argocd.start_repo_server(sup, argo)
        argocd.start_application_controller(sup, argo, repo_server, resync=app_resync)
        argocd.start_applicationset_controller(sup, argo, repo_server)
        argocd.start_notifications_controller(sup, argo, repo_server)
        step("Argo CD components started (repo-server, cmp-server, 3 controllers) and Redis", t)
        git = GitRepo(scratch / "git" / "apps")
    except BaseException:
        sup.stop_all()
        raise
    return Platform(sup, scratch, binaries, management, downstream, mgmt, down, argo, repo_server, git, timings)
