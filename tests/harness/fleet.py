"""A fleet on the e2e platform: many loopback clusters, two generator replicas, the real Argo CD around them.

What the mass-drop guard scenarios and the soak need beyond the one-cluster loop:

- **clusters**: each a ``Forward`` port to the downstream kube-apiserver (so Argo CD syncs real objects
  into a namespace of its own) that can go away and come back; its cluster Secret is labelled
  ``env=soak``;
- **two ``generator serve`` replicas** with leader election (the Lease), behind a round-robin balancer
  the plugin ConfigMap points at, as a Service would spread Argo CD's requests;
- **a receiver** of its own delivering to a sink (``/lifecycle`` for transitions, ``/alerts`` for the rest:
  Argo CD's alerts and the guard's held answers), with the catalog pointed at it;
- **the ApplicationSet ``soak``**: one Application per cluster (a ConfigMap), the phase policy in its
  ``templatePatch``, ``preserveResourcesOnDeletion``, the catalog's cluster triggers subscribed.

Argo CD is told to cache ConfigMaps only (``resource.inclusions``), which keeps one cluster cache per
loopback cluster cheap on two cores.
"""

from __future__ import annotations

import copy
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

import httpx
import yaml
from kubernetes import client as k8s

from . import argocd
from .argocd import http_ok
from .platform import Platform
from .procs import Process, free_port, wait_until
from .services import WEBHOOK_SERVICE, Receiver, install_catalog, start_receiver
from .sink import Sink
from .tcp import Forward, Loop

APPSET = "soak"
PLUGIN = "argocd-lifecycle-soak"  # the plugin ConfigMap and token Secret of the rig's generator
LEASE = "argocd-lifecycle-generator"
PREFIX = "argocd-lifecycle.io/"
SELECTED = {"labelSelector": {"matchExpressions": [{"key": "env", "operator": "In", "values": ["soak"]}]}}
TRIGGERS = ["on-cluster-unreachable", "on-cluster-recovered"]
APP_PATH = "soak"
#: counters summed over the replicas' lives (a restart starts them from zero)
COUNTED = ("argocd_lifecycle_getparams_mass_drop_refusals_total",)
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: soak\ndata:\n  k: v\n"
# probe every second, Unreachable after two failures, Ready after two good probes; a loss settles 3 s
TIMINGS = ["--probe-interval", "1s", "--probe-timeout", "1s", "--ready-after", "2", "--unreachable-after", "2",
           "--drop-settle", "3"]  # fmt: skip


def cluster_name(i: int) -> str:
    return f"c{i:02}"


@dataclass
class Replica:
    index: int
    port: int
    argv: list[str]  # without --identity: each start is a new Lease candidate, as a new pod is
    process: Process | None = None
    starts: int = 0

    @property
    def identity(self) -> str:
        return f"replica-{self.index}-{self.starts}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class Rig:
    platform: Platform
    sink: Sink
    receiver: Receiver
    tcp: Loop
    balancer: Forward
    replicas: list[Replica]
    clusters: dict[str, Forward] = field(default_factory=dict)
    #: counters of replicas that were stopped, summed (metric name -> value)
    counted: dict[str, float] = field(default_factory=dict)

    def total(self, name: str) -> float:
        """A counter over the whole run: stopped replicas' last values plus the running ones'."""
        return self.counted.get(name, 0.0) + self.metric(name)

    # -- kubernetes ----------------------------------------------------------------------------------
    @property
    def core(self) -> k8s.CoreV1Api:
        return k8s.CoreV1Api(self.platform.mgmt.api_client)

    @property
    def custom(self) -> k8s.CustomObjectsApi:
        return k8s.CustomObjectsApi(self.platform.mgmt.api_client)

    def secret(self, name: str, *, env: str = "soak", annotations: dict[str, str] | None = None) -> dict[str, Any]:
        down = self.platform.downstream
        return {
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {
                "name": f"cluster-{name}", "namespace": argocd.NAMESPACE,
                "labels": {"argocd.argoproj.io/secret-type": "cluster", "env": env, "soak-cluster": "true"},
                "annotations": dict(annotations or {}),
            },
            "stringData": {"name": name, "server": self.clusters[name].url,
                           "config": json.dumps(down.argocd_cluster_config())},
        }  # fmt: skip

    def register(self, name: str, *, env: str = "soak") -> None:
        self.platform.mgmt.apply(self.secret(name, env=env))

    def label(self, name: str, env: str) -> None:
        self.core.patch_namespaced_secret(f"cluster-{name}", argocd.NAMESPACE, {"metadata": {"labels": {"env": env}}})

    def annotate(self, name: str, key: str, value: str | None) -> None:
        body = {"metadata": {"annotations": {key: value}}}
        self.core.patch_namespaced_secret(f"cluster-{name}", argocd.NAMESPACE, body)

    def delete_secrets(self, names: list[str]) -> None:
        """One DeleteCollection, as ``kubectl delete secret -l ...`` sends it."""
        batch = secrets.token_hex(4)
        for name in names:
            self.core.patch_namespaced_secret(
                f"cluster-{name}", argocd.NAMESPACE, {"metadata": {"labels": {"soak-batch": batch}}}
            )
        self.core.delete_collection_namespaced_secret(argocd.NAMESPACE, label_selector=f"soak-batch={batch}")

    def cluster_secrets(self) -> dict[str, dict[str, Any]]:
        """The cluster Secrets of the rig by cluster name, as raw JSON."""
        raw = self.core.list_namespaced_secret(
            argocd.NAMESPACE, label_selector="soak-cluster=true", _preload_content=False
        )
        items = json.loads(raw.data).get("items") or []
        return {item["metadata"]["name"].removeprefix("cluster-"): item for item in items}

    def phases(self) -> dict[str, str]:
        """Each cluster's phase as the leader wrote it on its Secret."""
        secrets_ = self.cluster_secrets().items()
        return {n: (s["metadata"].get("annotations") or {}).get(PREFIX + "phase", "") for n, s in secrets_}

    def apply_appset(self, parameters: dict[str, Any] | None = None) -> None:
        self.platform.mgmt.apply(self.appset(parameters if parameters is not None else SELECTED))

    def appset(self, parameters: dict[str, Any]) -> dict[str, Any]:
        subscribe = {f"notifications.argoproj.io/subscribe.{t}.{WEBHOOK_SERVICE}": "" for t in TRIGGERS}
        patch = ("spec:\n  syncPolicy:\n    automated:\n      enabled: {{ .lifecycle.syncEnabled }}\n"
                 "      prune: {{ .lifecycle.prune }}\n      selfHeal: {{ .lifecycle.selfHeal }}\n")  # fmt: skip
        return {
            "apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
            "metadata": {"name": APPSET, "namespace": argocd.NAMESPACE},
            "spec": {
                "goTemplate": True, "goTemplateOptions": ["missingkey=error"],
                # the 30-minute default: Argo CD asks again when the generator refreshes it
                "generators": [{"plugin": {"configMapRef": {"name": PLUGIN}, "input": {"parameters": parameters},
                                           "requeueAfterSeconds": 1800}}],
                "syncPolicy": {"preserveResourcesOnDeletion": True},
                "template": {
                    "metadata": {"name": "soak-{{ .nameNormalized }}", "annotations": {
                        PREFIX + "cluster-phase": "{{ .lifecycle.phase }}",
                        PREFIX + "cluster-phase-since": "{{ .lifecycle.phaseSince }}", **subscribe}},
                    "spec": {
                        "project": "default",
                        "source": {"repoURL": self.platform.git.url, "targetRevision": "main", "path": APP_PATH},
                        "destination": {"server": "{{ .server }}", "namespace": "{{ .name }}"},
                    },
                },
                "templatePatch": patch,
            },
        }  # fmt: skip

    def tenant_appset(self, name: str, namespace: str, parameters: dict[str, Any]) -> dict[str, Any]:
        """The rig's ApplicationSet as a tenant writes it: ``namespace/name``, no automated sync (the
        tenant's Applications must exist, for the guard; syncing the rig's ConfigMap twice would make them
        fight), Applications named ``<name>-<cluster>``."""
        doc = copy.deepcopy(self.appset(parameters))
        doc["metadata"] = {"name": name, "namespace": namespace}
        spec = doc["spec"]
        spec.pop("templatePatch", None)
        spec["template"]["metadata"] = {"name": f"{name}-{{{{ .nameNormalized }}}}"}
        return doc

    def applications(self, namespace: str = argocd.NAMESPACE, appset: str = APPSET) -> dict[str, dict[str, Any]]:
        """The Applications ``namespace/appset`` owns, by the cluster they target (not those being deleted)."""
        listing = self.custom.list_namespaced_custom_object("argoproj.io", "v1alpha1", namespace, "applications")
        by_server = {f.url: name for name, f in self.clusters.items()}
        out = {}
        for app in listing.get("items") or []:
            meta = app["metadata"]
            owners = meta.get("ownerReferences") or []
            owned = any(r.get("kind") == "ApplicationSet" and r.get("name") == appset for r in owners)
            if owned and not meta.get("deletionTimestamp"):
                out[by_server.get(app["spec"]["destination"].get("server", ""), "?")] = app
        return out

    def appset_events(self, reason: str, namespace: str = argocd.NAMESPACE) -> int:
        """Count of the guard's Events of ``reason`` on the ApplicationSets of ``namespace`` (repeats bump
        one Event's count)."""
        listing = self.core.list_namespaced_event(namespace, _preload_content=False)
        items = json.loads(listing.data).get("items") or []
        mine = [e for e in items if (e.get("involvedObject") or {}).get("kind") == "ApplicationSet"]
        return sum(int(e.get("count") or 1) for e in mine if e.get("reason") == reason)

    def leader(self) -> str:
        lease = self.platform.mgmt.get("coordination.k8s.io/v1", "Lease", LEASE, argocd.NAMESPACE) or {}
        return str((lease.get("spec") or {}).get("holderIdentity") or "")

    # -- generator replicas ------------------------------------------------------------------------
    def start_replica(self, i: int) -> None:
        replica = self.replicas[i]
        replica.starts += 1
        argv = [*replica.argv, "--identity", replica.identity]
        replica.process = self.platform.sup.start(f"soak-generator-{i}", argv)
        self.platform.sup.wait_ready(replica.process, lambda: http_ok(f"{replica.url}/healthz"), timeout=60)

    def stop_replica(self, i: int, *, kill: bool = False) -> None:
        """SIGTERM (the Lease is given up) or SIGKILL (the other replica waits for it to expire); what
        its counters said is kept in ``counted`` first."""
        replica = self.replicas[i]
        if replica.process is None:
            return
        for name in COUNTED:
            self.counted[name] = self.counted.get(name, 0.0) + self.metric(name, only=i)
        if kill:
            replica.process.popen.kill()
        self.platform.sup.stop(replica.process)
        replica.process = None

    def metric(self, name: str, *, only: int | None = None) -> float:
        """The sum of one metric over the running replicas (each replica counts from its own start)."""
        total = 0.0
        for i, replica in enumerate(self.replicas):
            if replica.process is None or (only is not None and i != only):
                continue
            for line in httpx.get(f"{replica.url}/metrics", timeout=5).text.splitlines():
                if line.startswith(name) and not line.startswith("#"):
                    total += float(line.split()[-1])
        return total

    def close(self) -> None:
        for i in range(len(self.replicas)):
            self.stop_replica(i)
        for forward in [*self.clusters.values(), self.balancer]:
            forward.down()
        self.tcp.close()


def _generator_argv(platform: Platform, port: int, token_file: str, receiver: Receiver) -> list[str]:
    return [
        str(platform.binaries.cli), "generator", "serve",
        "--kubeconfig", str(platform.management.kubeconfig), "--namespace", argocd.NAMESPACE,
        "--listen", f"127.0.0.1:{port}", "--token-file", token_file,
        "--plugin-configmap", PLUGIN, *TIMINGS, *receiver.generator_flags(),
        *(arg for tenant in argocd.TENANTS for arg in ("--application-namespace", tenant)),
    ]  # fmt: skip


def _only_configmaps(platform: Platform) -> None:
    inclusions = [{"apiGroups": [""], "kinds": ["ConfigMap"], "clusters": ["*"]}]
    platform.mgmt.merge_patch(
        "v1", "ConfigMap", "argocd-cm", {"data": {"resource.inclusions": yaml.safe_dump(inclusions)}},
        namespace=argocd.NAMESPACE,
    )  # fmt: skip


def _stop_other_generators(platform: Platform) -> None:
    """The one-cluster loop's generator (no leader election) would write phases beside the rig's replicas."""
    for proc in list(platform.sup.processes):
        if proc.name == "generator":
            platform.sup.stop(proc)


def start_rig(platform: Platform, sink: Sink, clusters: int) -> Rig:
    """Everything above, with ``clusters`` Ready clusters and one synced Application each."""
    _stop_other_generators(platform)
    _only_configmaps(platform)
    receiver = start_receiver(platform, sink, name="soak-receiver")
    install_catalog(platform, receiver)
    platform.git.write({f"{APP_PATH}/configmap.yaml": CONFIGMAP})
    platform.git.commit("soak: one ConfigMap per cluster")
    folder = platform.scratch / "soak-generator"
    folder.mkdir(exist_ok=True)
    token = secrets.token_urlsafe(24)
    (folder / "token").write_text(token)
    ports = [free_port(), free_port()]
    replicas = [
        Replica(i, p, _generator_argv(platform, p, str(folder / "token"), receiver)) for i, p in enumerate(ports)
    ]
    tcp = Loop()
    balancer = Forward(tcp, ports)
    balancer.up()
    rig = Rig(platform, sink, receiver, tcp, balancer, replicas)
    platform.mgmt.apply({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": PLUGIN, "namespace": argocd.NAMESPACE, "labels": {"app.kubernetes.io/part-of": "argocd"}},
        "stringData": {"token": token},
    })  # fmt: skip
    platform.mgmt.apply({
        "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": PLUGIN, "namespace": argocd.NAMESPACE},
        "data": {"baseUrl": f"http://127.0.0.1:{balancer.port}", "token": f"${PLUGIN}:token", "requestTimeout": "10"},
    })  # fmt: skip
    for i in range(len(replicas)):
        rig.start_replica(i)
    for i in range(clusters):
        name = cluster_name(i)
        rig.clusters[name] = Forward(tcp, [platform.downstream.port])
        rig.clusters[name].up()
        platform.down.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        rig.register(name)
    rig.apply_appset()
    wait_until(lambda: set(rig.phases().values()) == {"Ready"} and len(rig.phases()) == clusters,
               timeout=120, what=f"{clusters} clusters Ready")  # fmt: skip
    wait_until(lambda: len(rig.applications()) == clusters, timeout=180, what=f"{clusters} Applications")
    return rig
