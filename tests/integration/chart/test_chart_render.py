"""Every ci/*-values.yaml scenario lints strictly, renders, and validates against Kubernetes 1.29 and 1.34."""

from __future__ import annotations

import pytest

from tests.integration.chart.chartkit import (
    CHART,
    KUBE_VERSIONS,
    OLD_CLUSTER_SETS,
    SCENARIOS,
    helm,
    render,
    serves_admission_policy,
    validate_strictly,
    version_sets,
)

pytestmark = pytest.mark.upstream

HOOKS = {"Job": 1, "Role": 1, "RoleBinding": 1, "ServiceAccount": 1}  # the secret-init hook
# the generator's and the secret-init hook's
POLICY = {"ValidatingAdmissionPolicy": 2, "ValidatingAdmissionPolicyBinding": 2}
EXPECTED_KINDS = {
    "default-values.yaml": {
        "ConfigMap": 3,  # plugin-generator wiring, plugin.yaml, notifications catalog
        "Deployment": 1,
        "NetworkPolicy": 1,
        "PodDisruptionBudget": 1,
        "Role": 1,
        "RoleBinding": 1,
        "Service": 1,
        "ServiceAccount": 1,
    },
    "ha-redis-values.yaml": {
        "ConfigMap": 4,
        "Deployment": 2,
        "NetworkPolicy": 2,
        "PodDisruptionBudget": 2,
        "Role": 1,
        "RoleBinding": 1,
        "Service": 2,
        "ServiceAccount": 2,
    },
    "all-enabled-values.yaml": {
        "ConfigMap": 6,  # and the generator's policy
        "Deployment": 2,
        "Job": 1,
        "NetworkPolicy": 2,
        "PersistentVolumeClaim": 1,
        "PodDisruptionBudget": 1,
        "PrometheusRule": 1,
        "Role": 3,  # and the notifications apply Job's in team-a (selfService)
        "RoleBinding": 3,
        "Service": 2,
        "ServiceAccount": 3,
        "ServiceMonitor": 2,
    },
}


def expected_kinds(scenario: str, kube_version: str) -> dict[str, int]:
    out = dict(EXPECTED_KINDS[scenario])
    for extra in (HOOKS, POLICY if serves_admission_policy(kube_version) else {}):
        for kind, n in extra.items():
            out[kind] = out.get(kind, 0) + n
    return out


def test_every_scenario_has_expectations() -> None:
    assert set(SCENARIOS) == set(EXPECTED_KINDS)


@pytest.mark.parametrize("kube_version", KUBE_VERSIONS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_lint_strict(scenario: str, kube_version: str) -> None:
    sets = [a for s in version_sets(kube_version) for a in ("--set", s)]
    proc = helm(
        "lint", "--strict", str(CHART), "--kube-version", kube_version, "--values", str(CHART / "ci" / scenario), *sets
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 chart(s) failed" in proc.stdout


@pytest.mark.parametrize("kube_version", KUBE_VERSIONS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_renders_and_validates_strictly(scenario: str, kube_version: str) -> None:
    docs = render(values=(scenario,), kube_version=kube_version, sets=version_sets(kube_version))
    kinds: dict[str, int] = {}
    for doc in docs:
        kinds[doc["kind"]] = kinds.get(doc["kind"], 0) + 1
    assert kinds == expected_kinds(scenario, kube_version)
    validate_strictly(docs, kube_version)


def test_strict_validation_catches_an_unknown_field() -> None:
    # the checker itself: a typo in a pod spec, and one in a ServiceMonitor, must not pass
    docs = render(values=("all-enabled-values.yaml",))
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    deployment["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    with pytest.raises(pytest.fail.Exception, match="imagePullPolicyy"):
        validate_strictly([deployment], KUBE_VERSIONS[0])
    monitor = next(d for d in docs if d["kind"] == "ServiceMonitor")
    monitor["spec"]["endpoints"][0]["intervall"] = "5s"
    with pytest.raises(pytest.fail.Exception, match='unknown field "intervall"'):
        validate_strictly([monitor], KUBE_VERSIONS[0])


def test_the_admission_policy_needs_1_30_and_says_which_value_turns_it_off() -> None:
    proc = helm("template", "x", str(CHART), "--kube-version", "1.29.9")
    assert proc.returncode != 0
    # one message names every value that turns a policy off
    assert "secretInit.admissionPolicy.enabled needs Kubernetes >= 1.30" in proc.stderr
    assert "set secretInit.admissionPolicy.enabled=false and generator.admissionPolicy.enabled=false" in proc.stderr
    proc = helm("template", "x", str(CHART), "--kube-version", "1.29.9", "--set", OLD_CLUSTER_SETS[1])
    assert "generator.admissionPolicy.enabled needs Kubernetes >= 1.30" in proc.stderr
    assert "set generator.admissionPolicy.enabled=false" in proc.stderr
    assert not [d for d in render(kube_version="1.29.9", sets=version_sets("1.29.9")) if "Validating" in d["kind"]]


def test_kube_versions_below_the_floor_are_refused() -> None:
    proc = helm("template", "x", str(CHART), "--kube-version", "1.28.9")
    assert proc.returncode != 0
    assert ">=1.29.0-0" in proc.stderr
