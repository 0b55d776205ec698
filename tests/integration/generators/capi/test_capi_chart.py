"""The chart's Cluster API values: the generator's arguments, its RBAC and admission policy, rendered by the
real helm and, on a real kube-apiserver with CAPI's CRDs, enough for the source and nothing more."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.generators.capi.names import MANAGED_BY_LABEL, MANAGED_BY_VALUE
from argocd_lifecycle.generators.capi.registration import SECRET_PREFIX
from tests.e2e.e2e_harness import capi, paths
from tests.e2e.e2e_harness.platform import register_node
from tests.e2e.e2e_harness.procs import HarnessError, Supervisor, free_port, wait_until
from tests.integration.chart.chartkit import NAMESPACE, find, one, render, render_error
from tests.integration.chart.realapi import RealApi, start, status_message

pytestmark = pytest.mark.upstream

ACCOUNT = "argocd-lifecycle-generator"
CAPI = "argocd-lifecycle-generator-capi"
ON = ("generator.capi.enabled=true", "generator.capi.namespaces={capi-clusters,team-b}",
      "generator.capi.copyLabels={env,topology.example.com/*}")  # fmt: skip
READ_RULES = [
    {"apiGroups": ["cluster.x-k8s.io"], "resources": ["clusters", "machinedeployments", "machinepools"],
     "verbs": ["list", "watch"]},
    {"apiGroups": ["controlplane.cluster.x-k8s.io"], "resources": ["kubeadmcontrolplanes"], "verbs": ["list", "watch"]},
    {"apiGroups": [""], "resources": ["secrets"], "verbs": ["list", "watch"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "get", "patch"]},
]  # fmt: skip


def args(docs: list[dict[str, Any]]) -> list[str]:
    return list(
        one(docs, "Deployment", "argocd-lifecycle-generator")["spec"]["template"]["spec"]["containers"][0]["args"]
    )


def test_off_by_default() -> None:
    docs = render()
    assert not [d for d in docs if "capi" in d["metadata"]["name"]]
    assert not [a for a in args(docs) if a.startswith("--capi")]
    policy = one(docs, "ValidatingAdmissionPolicy", "argocd-lifecycle-generator.argocd")
    assert [c["name"] for c in policy["spec"]["matchConditions"]] == ["generator-service-account"]


def test_the_generator_gets_the_flags_in_order_each_value_its_own_argument() -> None:
    flags = args(render(sets=ON))
    start_at = flags.index("--capi")
    assert flags[start_at : start_at + 9] == [
        "--capi", "--capi-namespace", "capi-clusters", "--capi-namespace", "team-b",
        "--capi-copy-label", "env", "--capi-copy-label", "topology.example.com/*",
    ]  # fmt: skip


def test_rbac_reads_only_the_watched_namespaces_and_writes_secrets_only_in_argo_cds() -> None:
    docs = render(sets=ON)
    writer = one(docs, "Role", f"{CAPI}-writer")
    assert writer["metadata"]["namespace"] == NAMESPACE
    assert writer["rules"] == [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["create", "delete"]}]
    readers = [d for d in find(docs, "Role") if d["metadata"]["name"] == CAPI]
    assert sorted(r["metadata"]["namespace"] for r in readers) == ["capi-clusters", "team-b"]
    assert all(r["rules"] == READ_RULES for r in readers)
    bindings = [d for d in find(docs, "RoleBinding") if d["metadata"]["name"].startswith(CAPI)]
    assert sorted((b["metadata"]["namespace"], b["roleRef"]["name"]) for b in bindings) == [
        (NAMESPACE, f"{CAPI}-writer"), ("capi-clusters", CAPI), ("team-b", CAPI),
    ]  # fmt: skip
    assert {json.dumps(b["subjects"]) for b in bindings} == {
        json.dumps([{"kind": "ServiceAccount", "name": ACCOUNT, "namespace": NAMESPACE}])
    }
    assert not find(docs, "ClusterRole")


def test_without_namespaces_one_cluster_role_reads_every_namespace() -> None:
    docs = render(sets=("generator.capi.enabled=true",))
    role = one(docs, "ClusterRole")
    assert role["metadata"]["name"] == f"{CAPI}.{NAMESPACE}" and role["rules"] == READ_RULES
    binding = one(docs, "ClusterRoleBinding")
    assert binding["roleRef"]["name"] == role["metadata"]["name"]
    assert not [a for a in args(docs) if a == "--capi-namespace"]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("generator.capi.namespaces={--kubeconfig}", "generator.capi.namespaces.0: Does not match pattern"),
        ("generator.capi.namespaces={Team_A}", "generator.capi.namespaces.0: Does not match pattern"),
        ("generator.capi.copyLabels={argocd.argoproj.io/secret-type}", "generator.capi.copyLabels.0"),
        ("generator.capi.copyLabels={argocd-lifecycle.io/*}", "generator.capi.copyLabels.0"),
        ("generator.capi.copyLabels={env value}", "generator.capi.copyLabels.0: Does not match pattern"),
        ("generator.capi.wat=1", "Additional property wat is not allowed"),
    ],
)
def test_the_schema_refuses_what_would_become_a_flag_or_a_foreign_label(value: str, problem: str) -> None:
    assert problem in render_error(sets=("generator.capi.enabled=true", value))


def test_the_policies_name_the_label_and_prefix_the_generator_writes() -> None:
    docs = render(sets=ON)
    main = one(docs, "ValidatingAdmissionPolicy", "argocd-lifecycle-generator.argocd")
    excluded = [c for c in main["spec"]["matchConditions"] if c["name"] == "not-a-cluster-api-secret"]
    assert excluded and f"'{MANAGED_BY_LABEL}'].orValue('') == '{MANAGED_BY_VALUE}'" in excluded[0]["expression"]
    policy = one(docs, "ValidatingAdmissionPolicy", f"{CAPI}.{NAMESPACE}")
    text = json.dumps(policy)
    assert f"'{MANAGED_BY_LABEL}'" in text and f"startsWith('{SECRET_PREFIX}')" in text
    binding = one(docs, "ValidatingAdmissionPolicyBinding", f"{CAPI}.{NAMESPACE}")
    assert binding["spec"] == {"policyName": f"{CAPI}.{NAMESPACE}", "validationActions": ["Deny"]}
    off = render(sets=(*ON, "generator.admissionPolicy.enabled=false"))
    # the secret-init hook's own policy is switched separately
    assert [p["metadata"]["name"] for p in find(off, "ValidatingAdmissionPolicy")] == [
        f"argocd-lifecycle-secret-init.{NAMESPACE}"
    ]


# -- on a real kube-apiserver -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealApi]:
    folder = tmp_path_factory.mktemp("capi-chart-apiserver")
    sup = Supervisor(folder / "logs")
    try:
        real = start(folder, sup)
        capi.install(real.cluster)
        with real.cluster.http() as http:
            http.post("/api/v1/namespaces", json={"metadata": {"name": "team-b"}}).raise_for_status()
        real.apply_all(render(sets=ON))
    except HarnessError as exc:
        sup.stop_all()
        pytest.fail(f"kube-apiserver/etcd did not start: {exc}", pytrace=False)
    except BaseException:
        sup.stop_all()
        raise
    try:
        yield real
    finally:
        sup.stop_all()


def _generator_argv(api: RealApi, token_file: Path, port: int) -> list[str]:
    """The Deployment's argv, with what a pod gets from its environment supplied here (one loopback
    --listen instead of the pod's addresses), faster probes so that the story takes seconds."""
    argv = args(render(sets=ON))
    while "--listen" in argv:
        at = argv.index("--listen")
        del argv[at : at + 2]
    for flag, value in (("--token-file", str(token_file)), ("--identity", "pod-a"), ("--probe-interval", "1s"),
                        ("--ready-after", "1")):  # fmt: skip
        argv[argv.index(flag) + 1] = value
    return [str(paths.our_cli()), *argv, "--listen", f"127.0.0.1:{port}", "--kubeconfig",
            str(api.kubeconfig_for(ACCOUNT))]  # fmt: skip


def test_the_generator_as_its_account_registers_and_retires_a_capi_cluster_with_nothing_refused(
    api: RealApi, tmp_path: Path
) -> None:
    admin, cluster = api.admin, api.cluster
    register_node(cluster.api_client(), "capi-node-a")
    admin.refresh_discovery()
    token_file = tmp_path / "token"
    token_file.write_text("plugin-token-for-the-test")
    sup = Supervisor(tmp_path / "logs")
    proc = sup.start("generator", _generator_argv(api, token_file, free_port()))
    name = f"{SECRET_PREFIX}capi-clusters.workload-1"
    try:
        doc = capi.fixture("cluster-topology")
        status = doc.pop("status")
        doc["metadata"].pop("uid")
        created = admin.apply(doc)
        admin.resource(doc["apiVersion"], "Cluster").subresources["status"].patch(
            name="workload-1", namespace=capi.NAMESPACE, body={"status": status},
            content_type="application/merge-patch+json",
        )  # fmt: skip
        config = capi.kubeconfig("workload-1", cluster.server, cluster.ca.cert_pem, cert_pem=cluster.admin.cert_pem,
                                 key_pem=cluster.admin.key_pem)  # fmt: skip
        admin.apply(capi.kubeconfig_secret(created, config))

        def phase() -> str | None:
            proc.check_alive()
            secret = admin.get("v1", "Secret", name, NAMESPACE)
            return ((secret or {}).get("metadata", {}).get("annotations") or {}).get("argocd-lifecycle.io/phase")

        wait_until(lambda: phase() == "Ready" or None, timeout=90, what="the CAPI cluster's Secret to turn Ready")
        events = admin.list("v1", "Event", capi.NAMESPACE)
        assert any(e["reason"] == "ClusterReady" and e["involvedObject"]["kind"] == "Cluster" for e in events)

        admin.delete(doc["apiVersion"], "Cluster", "workload-1", capi.NAMESPACE)  # finalizer: deleting
        wait_until(lambda: phase() == "Decommissioning" or None, timeout=60, what="Decommissioning")
        admin.delete("v1", "Secret", "workload-1-kubeconfig", capi.NAMESPACE)
        wait_until(lambda: admin.get("v1", "Secret", name, NAMESPACE) is None or None, timeout=60,
                   what="the generator to delete its Secret")  # fmt: skip
        admin.merge_patch(doc["apiVersion"], "Cluster", "workload-1", {"metadata": {"finalizers": None}},
                          namespace=capi.NAMESPACE)  # fmt: skip
        time.sleep(1)
    finally:
        sup.stop_all()
    log = (tmp_path / "logs" / "generator.log").read_text()
    for refusal in ("HTTP 403", "Forbidden", "denied"):
        assert refusal not in log, f"the generator was refused something:\n{log[-3000:]}"


def _secret(name: str, labels: dict[str, str], namespace: str = NAMESPACE) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "stringData": {"name": name, "server": "https://10.0.0.1:6443"}}  # fmt: skip


OURS = {"argocd.argoproj.io/secret-type": "cluster", MANAGED_BY_LABEL: MANAGED_BY_VALUE}


@pytest.mark.parametrize(
    ("what", "method", "path", "body", "message"),
    [
        ("create a Secret that is not one of the CAPI source's", "POST", f"/api/v1/namespaces/{NAMESPACE}/secrets",
         _secret("cluster-evil", {"argocd.argoproj.io/secret-type": "cluster"}), "may not create or delete"),
        ("create one of its own under another name", "POST", f"/api/v1/namespaces/{NAMESPACE}/secrets",
         _secret("argocd-secret-2", OURS), "is named capi.<namespace>.<cluster>"),
        ("create one of its own without the cluster label", "POST", f"/api/v1/namespaces/{NAMESPACE}/secrets",
         _secret("capi.x.y", {MANAGED_BY_LABEL: MANAGED_BY_VALUE}), "keeps the labels"),
        ("take a hand-written cluster Secret over", "PATCH", f"/api/v1/namespaces/{NAMESPACE}/secrets/cluster-hand",
         {"metadata": {"labels": {MANAGED_BY_LABEL: MANAGED_BY_VALUE}}}, "may not take over a Secret"),
        ("delete a hand-written cluster Secret", "DELETE", f"/api/v1/namespaces/{NAMESPACE}/secrets/cluster-hand",
         None, "may not create or delete"),
        ("strip the cluster label from one of its own", "PATCH", f"/api/v1/namespaces/{NAMESPACE}/secrets/capi.x.own",
         {"metadata": {"labels": {"argocd.argoproj.io/secret-type": None}}}, "keeps the labels"),
        ("create a Secret in a CAPI namespace", "POST", "/api/v1/namespaces/capi-clusters/secrets",
         _secret("capi.x.z", OURS, "capi-clusters"), "cannot create resource"),
        ("read Secrets of a namespace it does not watch", "GET", "/api/v1/namespaces/default/secrets", None,
         "cannot list resource"),
    ],
)  # fmt: skip
def test_the_account_is_refused_everything_else(
    api: RealApi, what: str, method: str, path: str, body: dict[str, Any] | None, message: str
) -> None:
    api.admin.apply(_secret("cluster-hand", {"argocd.argoproj.io/secret-type": "cluster"}))
    api.admin.apply(_secret("capi.x.own", OURS))
    headers = {"Content-Type": "application/merge-patch+json"} if method == "PATCH" else {}
    with api.as_account(ACCOUNT) as http:
        resp = http.request(method, path, json=body, headers=headers)
    assert resp.status_code == 403, f"{what}: {resp.status_code} {resp.text[:300]}"
    assert message in status_message(resp), f"{what}: {status_message(resp)}"
