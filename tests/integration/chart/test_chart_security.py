"""Every pod the chart can render is locked down the same way, in every scenario."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.chart.chartkit import SCENARIOS, pod_specs, render

pytestmark = pytest.mark.upstream

UID = 999
# the workloads that call the Kubernetes API; every other pod gets no token
API_CLIENTS = {
    "argocd-lifecycle-generator",
    "argocd-lifecycle-notifications-apply",
    "argocd-lifecycle-secret-init",
}
ALLOWED_VOLUMES = {"emptyDir", "configMap", "secret", "persistentVolumeClaim"}


def assert_container_locked_down(where: str, container: dict[str, Any]) -> None:
    sc = container.get("securityContext") or {}
    assert sc.get("runAsNonRoot") is True, where
    assert sc.get("runAsUser") == UID and sc.get("runAsGroup") == UID, where
    assert sc.get("allowPrivilegeEscalation") is False, where
    assert sc.get("readOnlyRootFilesystem") is True, where
    assert sc.get("capabilities") == {"drop": ["ALL"]}, where
    assert sc.get("seccompProfile") == {"type": "RuntimeDefault"}, where
    assert not sc.get("privileged"), where
    resources = container.get("resources") or {}
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(resources.get(kind) or {}), f"{where}: {kind}"
    # the only writable path is /tmp, and it is an emptyDir
    mounts = {m["mountPath"]: m for m in container.get("volumeMounts") or []}
    assert "/tmp" in mounts, f"{where}: no private /tmp"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_pod_is_locked_down(scenario: str) -> None:
    docs = render(values=(scenario,))
    specs = list(pod_specs(docs))
    assert specs, "no workloads rendered"
    for owner, spec in specs:
        psc = spec.get("securityContext") or {}
        assert psc.get("runAsNonRoot") is True, owner
        assert psc.get("runAsUser") == UID and psc.get("runAsGroup") == UID, owner
        assert psc.get("seccompProfile") == {"type": "RuntimeDefault"}, owner
        for flag in ("hostNetwork", "hostPID", "hostIPC"):
            assert not spec.get(flag), f"{owner}: {flag}"
        volumes = {v["name"]: v for v in spec.get("volumes") or []}
        for name, volume in volumes.items():
            assert set(volume) - {"name"} <= ALLOWED_VOLUMES, f"{owner}: volume {name}"
        name = owner.split("/", 1)[1]
        assert spec.get("automountServiceAccountToken") is (name in API_CLIENTS), owner
        containers = spec["containers"] + spec.get("initContainers", [])
        for container in containers:
            where = f"{owner}/{container['name']}"
            assert_container_locked_down(where, container)
            tmp = next(m for m in container["volumeMounts"] if m["mountPath"] == "/tmp")
            assert "emptyDir" in volumes[tmp["name"]], where
            writable = [m for m in container["volumeMounts"] if not m.get("readOnly")]
            for mount in writable:
                # configMap and secret volumes are read-only anyway; anything else writable is /tmp or data
                kind = next(iter(set(volumes[mount["name"]]) - {"name"}))
                assert kind in ("emptyDir", "persistentVolumeClaim", "configMap", "secret"), where
            if spec.get("restartPolicy") != "Never":  # long-running: liveness on /healthz
                assert container["livenessProbe"]["httpGet"]["path"] == "/healthz", f"{where}: livenessProbe"
                # the generator is ready once its watches are whole (/readyz), the receiver when it serves
                ready = "/readyz" if name.endswith("-generator") else "/healthz"
                assert container["readinessProbe"]["httpGet"]["path"] == ready, f"{where}: readinessProbe"


def test_all_enabled_covers_every_workload() -> None:
    # the walk above is only as good as what it sees: the broad scenario renders every workload kind
    owners = {owner for owner, _ in pod_specs(render(values=("all-enabled-values.yaml",)))}
    assert owners == {
        "Deployment/argocd-lifecycle-generator",
        "Deployment/argocd-lifecycle-receiver",
        "Job/argocd-lifecycle-notifications-apply",
        "Job/argocd-lifecycle-secret-init",
    }


def test_service_accounts_do_not_hand_out_tokens_by_default() -> None:
    docs = render(values=("all-enabled-values.yaml",))
    accounts = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ServiceAccount"}
    assert accounts["argocd-lifecycle-generator"]["automountServiceAccountToken"] is True
    assert accounts["argocd-lifecycle-receiver"]["automountServiceAccountToken"] is False
    assert accounts["argocd-lifecycle-notifications-apply"]["automountServiceAccountToken"] is False
    assert accounts["argocd-lifecycle-secret-init"]["automountServiceAccountToken"] is False


def test_weakening_a_security_setting_is_seen() -> None:
    # the walk fails on a chart that lets a container escalate
    docs = render(sets=("global.containerSecurityContext.allowPrivilegeEscalation=true",))
    owner, spec = next(iter(pod_specs(docs)))
    with pytest.raises(AssertionError):
        assert_container_locked_down(owner, spec["containers"][0])
