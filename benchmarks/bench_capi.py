"""The Cluster API source's CPU work at fleet scale, side by side with the inventory's own for the same fleet.

Measures, in one process, for N CAPI Clusters (ClusterClass clusters with a KubeadmControlPlane and a
MachineDeployment each, in the v1beta2 shape of tests/fixtures/capi/):
- **relist**: a full listing of Clusters, control planes, MachineDeployments and kubeconfig Secrets into
  the store (what a (re)list costs), against the inventory parsing the N cluster Secrets it makes
  (`parse_secret`, what the inventory does on its own relist);
- **resync**: the reconciler's look at every Cluster when nothing changed (intent, the desired Secret,
  the merge patch that comes out empty), which runs every 60 s and for a new leader, against the same
  inventory parse;
- **kubeconfig**: parsing one CAPI kubeconfig Secret (a credentials rotation), against parsing the
  cluster Secret made from it.
Targets: a resync of 2,000 Clusters in under 1 s of CPU (it runs every 60 s), and each ratio within 5x
of the inventory's work for the same clusters.

Usage: .venv/bin/python benchmarks/bench_capi.py [--clusters N] [--rounds R] [--smoke]
``--smoke`` runs the same code on 20 clusters, one round (what `make test` runs); its figures mean nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from copy import deepcopy
from pathlib import Path
from typing import Any, cast

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from argocd_lifecycle.cluster_secrets import SecretWire, parse_secret  # noqa: E402
from argocd_lifecycle.generators.capi.intent import intent  # noqa: E402
from argocd_lifecycle.generators.capi.kubeconfig import parse_kubeconfig  # noqa: E402
from argocd_lifecycle.generators.capi.objects import CapiCluster, ClusterKey  # noqa: E402
from argocd_lifecycle.generators.capi.registration import desired, manifest, patch  # noqa: E402
from argocd_lifecycle.generators.capi.store import Kubeconfig, Store  # noqa: E402
from tests.harness.capi import fixture, kubeconfig, kubeconfig_secret  # noqa: E402
from tests.harness.pki import CertificateAuthority  # noqa: E402

ALLOW = ("env", "team.example.com/*")


def fleet(count: int) -> dict[str, list[dict[str, Any]]]:
    """N clusters' objects as a listing returns them (one CA and admin pair for all: parsing is the cost)."""
    ca = CertificateAuthority("bench-ca")
    admin = ca.client("kubernetes-admin", "system:masters")
    out: dict[str, list[dict[str, Any]]] = {"clusters": [], "kcps": [], "mds": [], "secrets": []}
    templates = {stem: fixture(stem) for stem in ("cluster-topology", "kubeadmcontrolplane-topology",
                                                  "machinedeployment-topology")}  # fmt: skip

    def copy(stem: str, **meta: str) -> dict[str, Any]:
        doc = deepcopy(templates[stem])
        doc["metadata"].update(meta)
        return doc

    for i in range(count):
        name = f"c-{i:05d}"
        cluster = copy("cluster-topology", name=name, uid=f"uid-{i}")
        cluster["spec"]["controlPlaneRef"]["name"] = f"{name}-cp"
        kcp = copy("kubeadmcontrolplane-topology", name=f"{name}-cp")
        kcp["metadata"]["labels"]["cluster.x-k8s.io/cluster-name"] = name
        md = copy("machinedeployment-topology", name=f"{name}-md-0")
        md["spec"]["clusterName"] = name
        config = kubeconfig(name, f"https://10.{i // 250}.{i % 250}.1:6443", ca.cert_pem, cert_pem=admin.cert_pem,
                            key_pem=admin.key_pem)  # fmt: skip
        out["clusters"].append(cluster)
        out["kcps"].append(kcp)
        out["mds"].append(md)
        out["secrets"].append(kubeconfig_secret(cluster, config))
    return out


def relist(store: Store, objs: dict[str, list[dict[str, Any]]]) -> None:
    store.clusters.relist("capi-clusters", objs["clusters"])
    store.control_planes.relist("capi-clusters", objs["kcps"])
    store.deployments.relist("capi-clusters", objs["mds"])
    store.kubeconfigs.relist("capi-clusters", objs["secrets"])


def resync(store: Store, ours: dict[ClusterKey, Any]) -> int:
    """What reconcile() computes for every Cluster when nothing changed; returns how many need a write."""
    writes = 0
    for key in sorted(store.cluster_keys()):
        cluster = store.cluster(key)
        kc = store.kubeconfig(key)
        assert isinstance(cluster, CapiCluster) and isinstance(kc, Kubeconfig)
        it = intent(cluster, store.control_plane(cluster), store.worker_groups(key))
        if patch(desired(cluster, kc.endpoint, it, ALLOW), ours[key]) is not None:
            writes += 1
    return writes


def cpu(fn: Callable[[], object], rounds: int) -> float:
    """Median CPU seconds of ``fn`` (process time: steadier than wall time on a shared machine)."""
    samples = []
    for _ in range(rounds):
        started = time.process_time()
        fn()
        samples.append(time.process_time() - started)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--smoke", action="store_true")
    opts = parser.parse_args()
    count, rounds = (20, 1) if opts.smoke else (opts.clusters, opts.rounds)
    objs = fleet(count)
    store = Store()
    relist(store, objs)
    ours: dict[ClusterKey, Any] = {}
    secrets = []
    for key in store.cluster_keys():
        cluster, kc = store.cluster(key), store.kubeconfig(key)
        assert isinstance(cluster, CapiCluster) and isinstance(kc, Kubeconfig)
        body = manifest(desired(cluster, kc.endpoint, intent(cluster, store.control_plane(cluster),
                                                             store.worker_groups(key)), ALLOW), "argocd")  # fmt: skip
        ours[key] = parse_secret(body)
        secrets.append(body)
    assert resync(store, ours) == 0, "a resync of an unchanged fleet must write nothing"

    inventory = cpu(lambda: [parse_secret(s) for s in secrets], rounds)
    one_kubeconfig = cast(SecretWire, objs["secrets"][0])
    rows = [
        ("relist (4 kinds, N Clusters)", cpu(lambda: relist(Store(), objs), rounds), inventory),
        ("resync, nothing to change", cpu(lambda: resync(store, ours), rounds), inventory),
        ("kubeconfig Secret, one", cpu(lambda: parse_kubeconfig(one_kubeconfig, where="bench"), rounds * 20),
         cpu(lambda: parse_secret(secrets[0]), rounds * 20)),
    ]  # fmt: skip
    print(f"{count} CAPI Clusters, median of {rounds} rounds, CPU seconds")
    print(f"{'case':32} {'ours':>10} {'inventory':>10} {'ratio':>7}")
    for case, ours_s, base in rows:
        print(f"{case:32} {ours_s:10.4f} {base:10.4f} {ours_s / base if base else float('nan'):7.2f}")
    per = rows[1][1] / count * 1e6
    print(f"resync: {per:.0f} us per Cluster; {rows[1][1] * 2000 / count:.2f} s of CPU for 2,000 (target < 1 s)")


if __name__ == "__main__":
    main()
