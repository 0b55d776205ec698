"""Helpers for the chart tests: render with the real helm from `make tools` and pick objects.

Every chart test is in the upstream tier: a missing helm binary FAILS with the reason, never skips.
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import require_tool

REPO = Path(__file__).resolve().parents[3]
CHART = REPO / "charts" / "argocd-lifecycle"
SCENARIOS = sorted(p.name for p in (CHART / "ci").glob("*-values.yaml"))
KUBE_VERSIONS = ("1.29.0", "1.34.0")
# ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1) is served from 1.30: older clusters turn it off
ADMISSION_POLICY_SINCE = (1, 30)
OLD_CLUSTER_SETS = ("generator.admissionPolicy.enabled=false", "secretInit.admissionPolicy.enabled=false")
RELEASE = "argocd-lifecycle"
NAMESPACE = "argocd"


def tool(name: str) -> str:
    return str(require_tool(name))


@functools.cache
def _helm(args: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool("helm"), *args], capture_output=True, text=True, check=False, timeout=120)


def serves_admission_policy(kube_version: str) -> bool:
    major, minor = (int(x) for x in kube_version.split(".")[:2])
    return (major, minor) >= ADMISSION_POLICY_SINCE


def version_sets(kube_version: str) -> tuple[str, ...]:
    """The values a cluster of that version needs on top of a scenario."""
    return () if serves_admission_policy(kube_version) else OLD_CLUSTER_SETS


def template_args(
    *,
    values: tuple[str, ...] = (),
    sets: tuple[str, ...] = (),
    release: str = RELEASE,
    namespace: str = NAMESPACE,
    kube_version: str = KUBE_VERSIONS[-1],
    chart: Path = CHART,
) -> tuple[str, ...]:
    args = ["template", release, str(chart), "--namespace", namespace, "--kube-version", kube_version]
    for v in values:
        args += ["--values", str(CHART / "ci" / v) if "/" not in v else v]
    for s in sets:
        args += ["--set", s]
    return tuple(args)


def render(**kwargs: Any) -> list[dict[str, Any]]:
    """The objects `helm template` renders; fails the test with helm's message when it cannot."""
    proc = _helm(template_args(**kwargs))
    if proc.returncode != 0:
        pytest.fail(f"helm template failed: {proc.stderr.strip()}")
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def render_error(**kwargs: Any) -> str:
    """helm's error for values the chart must refuse; fails the test when rendering succeeds."""
    proc = _helm(template_args(**kwargs))
    if proc.returncode == 0:
        pytest.fail("helm template accepted values it should have refused")
    return proc.stderr


def helm(*args: str) -> subprocess.CompletedProcess[str]:
    return _helm(tuple(args))


APPLY_JOB = f"{RELEASE}-notifications-apply"


def outside_the_release_namespace(doc: dict[str, Any], scenario: str) -> bool:
    """Whether ``doc`` is one the scenario puts in another namespace on purpose: the notifications apply
    Job's Role or RoleBinding in a tenant's namespace (notifications.selfService.namespaces)."""
    values = yaml.safe_load((CHART / "ci" / scenario).read_text()) or {}
    tenants = ((values.get("notifications") or {}).get("selfService") or {}).get("namespaces") or []
    meta = doc["metadata"]
    return doc["kind"] in ("Role", "RoleBinding") and meta["name"] == APPLY_JOB and meta.get("namespace") in tenants


def find(docs: list[dict[str, Any]], kind: str, name: str | None = None) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]


def one(docs: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    found = find(docs, kind, name)
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {[d['metadata']['name'] for d in found]}"
    return found[0]


def pod_specs(docs: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(kind/name, pod spec) of every workload; a chart with a workload kind we forgot fails here."""
    for d in docs:
        if d["kind"] in ("Deployment", "StatefulSet", "DaemonSet", "Job"):
            yield f"{d['kind']}/{d['metadata']['name']}", d["spec"]["template"]["spec"]
        elif d["kind"] in ("Pod", "CronJob", "ReplicaSet"):
            raise AssertionError(f"unexpected workload kind {d['kind']}: extend pod_specs")


MONITORING_API = "monitoring.coreos.com/v1"


def validate_strictly(docs: list[dict[str, Any]], kube_version: str) -> None:
    """Validate objects against Kubernetes' own schemas for that version, unknown fields refused.

    Prometheus Operator kinds have no Kubernetes schema: `monitoring-validate` (tools/go/monitoring)
    decodes them into the operator's own Go types with unknown fields refused.
    """
    import kubernetes_validate

    monitoring = [d for d in docs if d["apiVersion"] == MONITORING_API]
    for doc in docs:
        if doc["apiVersion"] == MONITORING_API:
            continue
        what = f"{doc['kind']}/{doc['metadata']['name']}"
        try:
            kubernetes_validate.validate(doc, kube_version, strict=True)
        except kubernetes_validate.SchemaNotFoundError as exc:
            pytest.fail(f"{what}: {exc.message}")
        except kubernetes_validate.ValidationError as exc:
            path = ".".join(str(p) for p in exc.path)
            pytest.fail(f"{what} on {kube_version}: {path}: {exc.message}")
    if monitoring:
        proc = subprocess.run(
            [tool("monitoring-validate")],
            input=yaml.safe_dump_all(monitoring),
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        lines = proc.stdout.splitlines()
        if proc.returncode != 0 or len(lines) != len(monitoring) or not all(x.startswith("ok ") for x in lines):
            pytest.fail(f"monitoring objects rejected: {proc.stdout}{proc.stderr}")
