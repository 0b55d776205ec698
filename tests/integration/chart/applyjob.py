"""The notifications apply Job's container run outside a pod, on the real kube-apiserver: its argv with the
mounted manifest at a local path, as the Job's ServiceAccount; and what the API server then holds."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.harness import paths
from tests.integration.chart.chartkit import APPLY_JOB
from tests.integration.chart.realapi import NAMESPACE, RealApi

CM = "argocd-notifications-cm"
MOUNTED = "--filename=/etc/argocd-lifecycle/notifications/apply.yaml"


def run_container(
    api: RealApi, container: dict[str, Any], manifest: dict[str, Any], tmp_path: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    """The container's argv with the ConfigMap volume's file at a local path, as the Job's account."""
    path = tmp_path / "apply.yaml"
    path.write_text(yaml.safe_dump(manifest))
    args = [f"--filename={path}" if a == MOUNTED else a for a in container["args"]]
    assert args != container["args"], "the Job no longer reads the mounted apply.yaml"
    argv = [str(paths.our_cli()), *args, *extra, "--kubeconfig", str(api.kubeconfig_for(APPLY_JOB))]
    return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=60)


def owned_by(cm: dict[str, Any], manager: str) -> set[str]:
    """The data keys ``manager`` owns (from managedFields)."""
    for entry in cm["metadata"].get("managedFields") or []:
        if entry["manager"] == manager and entry["operation"] == "Apply":
            return {k[2:] for k in (entry["fieldsV1"].get("f:data") or {}) if k.startswith("f:")}
    return set()


def apply_as(api: RealApi, manager: str, data: dict[str, str], *, force: bool, namespace: str = NAMESPACE) -> int:
    """A server-side apply of ``data`` by another field manager (argo-helm, a person, a tenant)."""
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": CM, "namespace": namespace}, "data": data}
    with api.cluster.http() as http:
        resp = http.patch(
            f"/api/v1/namespaces/{namespace}/configmaps/{CM}",
            params={"fieldManager": manager, "force": str(force).lower()},
            content=yaml.safe_dump(body),
            headers={"Content-Type": "application/apply-patch+yaml"},
        )
    return resp.status_code
