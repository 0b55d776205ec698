"""Every container the chart renders with its CI values runs from the image, as its pod would run it.

For each ci/*-values.yaml: the rendered objects go to a real kube-apiserver, then, in a Helm install's
order, the pre-install hook Jobs run to completion (secret-init creates the token Secrets), every
Deployment's container starts and answers its readiness probe (/healthz) on the pod's address, and the
post-install hook Jobs run (the notifications apply). Each container is the rendered one (argv, env,
volumes, ServiceAccount token) run by tests/integration/image/pods.py as uid 999 on the read-only root.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.harness import argocd, paths
from tests.harness.procs import HarnessError, Supervisor
from tests.integration.chart import realapi
from tests.integration.chart.chartkit import SCENARIOS, pod_specs, render
from tests.integration.chart.realapi import NAMESPACE, RealApi
from tests.integration.image.pods import POD_IP, Pod
from tests.integration.image.rootfs import description, unpacked

pytestmark = pytest.mark.upstream

NOT_SERVED = ("monitoring.coreos.com/",)  # no Prometheus Operator CRDs on the API server
#: the Secrets a user creates before installing (ci values name them); URLs are never contacted here
USER_SECRETS = {
    "argocd-lifecycle-slack": {"url": "http://127.0.0.1:9/slack"},
    "argocd-lifecycle-dingtalk": {"url": "http://127.0.0.1:9/dingtalk", "secret": "SEC0123456789"},
    "argocd-lifecycle-audit": {"url": "http://127.0.0.1:9/audit", "hmac": "0123456789abcdef0123456789abcdef"},
}
READY_WITHIN = 90.0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RealApi, str]]:
    """etcd, kube-apiserver (with Argo CD's CRDs and config) and a Redis, for every scenario."""
    folder = tmp_path_factory.mktemp("image-pods")
    sup = Supervisor(folder / "logs")
    try:
        api = realapi.start(folder, sup)
        redis = argocd.start_redis(sup, paths.system_binary("redis-server", "redis-server"))
    except HarnessError as exc:
        sup.stop_all()
        pytest.fail(f"kube-apiserver, etcd or Redis did not start: {exc}", pytrace=False)
    try:
        yield api, redis
    finally:
        sup.stop_all()


@pytest.fixture(scope="module")
def root() -> Path:
    return unpacked()


def hook(doc: dict[str, Any]) -> str:
    return str((doc["metadata"].get("annotations") or {}).get("helm.sh/hook", ""))


def install(api: RealApi, docs: list[dict[str, Any]], redis: str) -> None:
    """What `helm install` writes, except the hook Jobs (run here instead), and the user's Secrets."""
    for doc in docs:
        if doc["kind"] != "Job" and not doc["apiVersion"].startswith(NOT_SERVED):
            api.admin.apply(doc, namespace=NAMESPACE)
    secrets = {**USER_SECRETS, "argocd-lifecycle-redis": {"url": f"redis://{redis}/0"}}
    for name, data in secrets.items():
        api.admin.apply(
            {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "stringData": data}, namespace=NAMESPACE
        )


def probe_url(container: dict[str, Any]) -> str:
    probe = container["readinessProbe"]["httpGet"]
    ports = {p.get("name"): p["containerPort"] for p in container.get("ports") or []}
    port = ports[probe["port"]] if isinstance(probe["port"], str) else probe["port"]
    return f"http://{POD_IP}:{port}{probe['path']}"


def answers(url: str) -> int | None:
    try:
        return httpx.get(url, timeout=2).status_code
    except httpx.HTTPError:
        return None


def serve_until_ready(pod: Pod, container: dict[str, Any], log: Path) -> str:
    """Start the container, wait for its readiness probe to answer 200, stop it; the probed URL."""
    url = probe_url(container)
    assert answers(url) is None, f"something else answers {url}: the pods share this machine's loopback"
    with log.open("wb") as out:
        proc = subprocess.Popen(pod.command(container), stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + READY_WITHIN
        while answers(url) != 200:
            assert proc.poll() is None, f"{pod.name} exited with {proc.returncode}:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"{pod.name}: {url} not ready:\n{log.read_text()[-3000:]}"
            time.sleep(0.3)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)  # run.sh became unshare, which ignores SIGTERM
        proc.wait(10)
        # the container (pid 1 of its namespace) gets its SIGKILL from unshare's death, a moment later
        deadline = time.monotonic() + 10
        while answers(url) is not None:
            assert time.monotonic() < deadline, f"{pod.name} still answers {url} after SIGKILL"
            time.sleep(0.1)
    return url


@pytest.mark.timeout(600)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_container_the_chart_renders_runs_in_the_image(
    cluster: tuple[RealApi, str], root: Path, tmp_path: Path, scenario: str
) -> None:
    api, redis = cluster
    docs = render(values=(scenario,))
    install(api, docs, redis)
    entrypoint = description()["config"]["Entrypoint"]
    workloads = {d["metadata"]["name"]: d for d in docs if d["kind"] in ("Deployment", "Job")}
    order = sorted(workloads.values(), key=lambda d: 0 if "pre-" in hook(d) else 2 if "post-" in hook(d) else 1)
    ran: list[str] = []
    for doc in order:
        name = doc["metadata"]["name"]
        spec = doc["spec"]["template"]["spec"]
        pod = Pod(api, root, f"{name}-smoke", spec, tmp_path / name, entrypoint)
        for container in spec.get("initContainers") or []:
            out = pod.run(container)
            assert out.returncode == 0, f"{name}/{container['name']}: {out.stderr}"
            ran.append(f"{doc['kind']}/{name}/{container['name']}")
        for container in spec["containers"]:
            if doc["kind"] == "Job":
                out = pod.run(container)
                assert out.returncode == 0, f"{name}/{container['name']}: {out.stderr}"
                assert "Traceback" not in out.stderr
            else:
                url = serve_until_ready(pod, container, tmp_path / f"{name}-{container['name']}.log")
                # ready by its readinessProbe: /healthz, or the generator's /readyz (its watches listed)
                assert url.endswith("/readyz" if name.endswith("-generator") else "/healthz"), url
            ran.append(f"{doc['kind']}/{name}/{container['name']}")
    rendered = [
        f"{what}/{c['name']}"
        for what, spec in pod_specs(docs)
        for c in (spec.get("initContainers") or []) + spec["containers"]
    ]
    assert sorted(ran) == sorted(rendered)
    # what the hooks did is in the cluster: the token Secrets, and our keys in Argo CD's ConfigMap
    assert api.admin.get("v1", "Secret", "argocd-lifecycle-generator-token", NAMESPACE) is not None
    if any(d["metadata"]["name"].endswith("notifications-apply") for d in order):
        applied = api.admin.get("v1", "ConfigMap", "argocd-notifications-cm", NAMESPACE) or {}
        assert any(k.startswith("trigger.") for k in applied.get("data") or {})
