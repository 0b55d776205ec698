"""The real generator, started with the chart's own arguments, works as its ServiceAccount under the
chart's Role and admission policy: every write it makes on a transition passes, none is refused."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.model import Annotation
from tests.harness import paths
from tests.harness.platform import register_node
from tests.harness.procs import Supervisor, free_port, wait_until
from tests.integration.chart.chartkit import one, render
from tests.integration.chart.realapi import NAMESPACE, RealApi

pytestmark = pytest.mark.upstream

ACCOUNT = "argocd-lifecycle-generator"
LEASE = "argocd-lifecycle-generator"


def chart_args(token_file: Path, kubeconfig: Path, port: int) -> list[str]:
    """The Deployment's argv, with what a pod gets from its environment supplied here."""
    container = one(render(), "Deployment")["spec"]["template"]["spec"]["containers"][0]
    args = list(container["args"])
    for flag, value in (("--token-file", str(token_file)), ("--identity", "pod-a"), ("--listen", f"127.0.0.1:{port}")):
        args[args.index(flag) + 1] = value
    # faster than in production so that the story takes seconds
    for flag, value in (("--probe-interval", "1s"), ("--ready-after", "1")):
        args[args.index(flag) + 1] = value
    if "--in-cluster" in args:  # not in a pod: no KUBERNETES_SERVICE_HOST to probe the management cluster by
        args.remove("--in-cluster")
    return [str(paths.our_cli()), *args, "--kubeconfig", str(kubeconfig)]


def test_the_generator_runs_as_its_account_and_nothing_it_writes_is_refused(real_api: RealApi, tmp_path: Path) -> None:
    api = real_api
    admin = api.admin
    admin.delete("coordination.k8s.io/v1", "Lease", LEASE, NAMESPACE)  # a clean election
    register_node(api.cluster.api_client(), "node-a")
    config = api.cluster.argocd_cluster_config()
    admin.apply({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "cluster-self", "namespace": NAMESPACE,
                     "labels": {"argocd.argoproj.io/secret-type": "cluster"}},
        "stringData": {"name": "self", "server": api.cluster.server, "config": json.dumps(config)},
    })  # fmt: skip
    admin.apply({
        "apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
        "metadata": {"name": "fleet-two", "namespace": NAMESPACE},
        "spec": {"generators": [{"plugin": {"configMapRef": {"name": "argocd-lifecycle-generator"}}}],
                 "template": {"metadata": {"name": "{{name}}-app"},
                              "spec": {"project": "default",
                                       "source": {"repoURL": "https://git.example/apps", "path": "app"},
                                       "destination": {"server": "{{server}}", "namespace": "app"}}}},
    })  # fmt: skip
    token_file = tmp_path / "token"
    token_file.write_text("plugin-token-for-the-test")
    port = free_port()
    sup = Supervisor(tmp_path / "logs")
    proc = sup.start("generator", chart_args(token_file, api.kubeconfig_for(ACCOUNT), port))
    try:

        def secret() -> dict[str, Any]:
            found = admin.get("v1", "Secret", "cluster-self", NAMESPACE)
            assert found is not None
            return found

        def ready() -> bool:
            proc.check_alive()
            return (secret()["metadata"].get("annotations") or {}).get(Annotation.PHASE) == "Ready"

        wait_until(ready, timeout=90, what="the generator to write phase Ready onto the cluster Secret")
        annotations = secret()["metadata"]["annotations"]
        assert annotations[Annotation.KUBERNETES_VERSION] == "1.34.2"

        def refreshed() -> bool:
            appset = admin.get("argoproj.io/v1alpha1", "ApplicationSet", "fleet-two", NAMESPACE) or {}
            return (appset.get("metadata", {}).get("annotations") or {}).get(Annotation.APPSET_REFRESH) == "true"

        wait_until(refreshed, timeout=30, what="the ApplicationSet refresh annotation")

        def event() -> bool:
            events = admin.list("v1", "Event", NAMESPACE)
            return any(e["reason"] == "ClusterReady" and e["involvedObject"]["name"] == "cluster-self" for e in events)

        wait_until(event, timeout=30, what="the ClusterReady Event")
        lease = admin.get("coordination.k8s.io/v1", "Lease", LEASE, NAMESPACE)
        assert lease is not None and lease["spec"]["holderIdentity"] == "pod-a"
        time.sleep(1)  # one more probe round, in case a later write were refused
    finally:
        sup.stop_all()
    log = proc.log_path.read_text()
    assert not re.search(r"\b403\b|[Ff]orbidden|denied|ValidatingAdmissionPolicy", log), log[-3000:]
