"""The chart's Cluster API values: the generator's arguments, its RBAC and admission policy, rendered by the
real helm and, on a real kube-apiserver with CAPI's CRDs, enough for the source and nothing more."""

from __future__ import annotations

import base64
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.generators.capi.names import MANAGED_BY_LABEL, MANAGED_BY_VALUE
from argocd_lifecycle.generators.capi.registration import SECRET_PREFIX
from tests.harness import capi, paths
from tests.harness.procs import HarnessError, Supervisor, free_port, wait_until
from tests.integration.chart.chartkit import NAMESPACE, find, one, render, render_error, template_args, tool
from tests.integration.chart.realapi import RealApi, start, status_message
from tests.integration.generators.loopback import LoopbackCluster

pytestmark = pytest.mark.upstream

ACCOUNT = "argocd-lifecycle-generator"
V1B2 = "cluster.x-k8s.io/v1beta2"
CAPI = "argocd-lifecycle-generator-capi"
# the workload clusters of these tests listen on loopback, which the generator refuses unless told
ON = ("generator.capi.enabled=true", "generator.capi.namespaces={capi-clusters,team-b}",
      "generator.capi.copyLabels={env,topology.example.com/*}",
      "generator.capi.allowServers={127.0.0.0/8}")  # fmt: skip
READ_RULES = [
    {"apiGroups": ["cluster.x-k8s.io"], "resources": ["clusters", "machinedeployments", "machinepools"],
     "verbs": ["list", "watch"]},
    {"apiGroups": ["controlplane.cluster.x-k8s.io"], "resources": ["kubeadmcontrolplanes"], "verbs": ["list", "watch"]},
    {"apiGroups": [""], "resources": ["secrets"], "verbs": ["list", "watch"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "get", "patch"]},
]  # fmt: skip


def refused_without_schema(sets: tuple[str, ...]) -> str:
    """helm's error with the schema skipped (``--skip-schema-validation``): the templates' own checks."""
    argv = [tool("helm"), *template_args(sets=sets), "--skip-schema-validation"]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode != 0, "helm template accepted values it should have refused"
    return proc.stderr


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
    flags = args(render(sets=(*ON, "generator.capi.denyServers={10.0.0.0/8,*.mgmt.example}")))
    start_at = flags.index("--capi")
    assert flags[start_at : start_at + 15] == [
        "--capi", "--capi-namespace", "capi-clusters", "--capi-namespace", "team-b",
        "--capi-copy-label", "env", "--capi-copy-label", "topology.example.com/*",
        "--capi-allow-server", "127.0.0.0/8",
        "--capi-deny-server", "10.0.0.0/8", "--capi-deny-server", "*.mgmt.example",
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


def test_cluster_api_needs_its_namespaces_named() -> None:
    """Finding 4: with `generator.capi.enabled` alone the chart rendered a ClusterRole that let the generator
    list every Secret of the cluster and create Events anywhere. Now it refuses to render, saying why, with
    the schema and, should the schema be skipped, with the template's own check."""
    assert "generator.capi.namespaces: Array must have at least 1 items" in render_error(
        sets=("generator.capi.enabled=true",)
    )
    skipped = refused_without_schema(("generator.capi.enabled=true",))
    assert "generator.capi.namespaces: name the namespaces whose Cluster API objects the generator watches" in skipped


@pytest.mark.parametrize(
    "sets",
    [ON, (*ON, "generator.admissionPolicy.enabled=false"),
     ("generator.capi.enabled=true", f"generator.capi.namespaces={{{NAMESPACE},kube-system}}")],
)  # fmt: skip
def test_the_rendered_rbac_holds_no_cluster_wide_secret_access(sets: tuple[str, ...]) -> None:
    docs = render(sets=sets)
    assert not find(docs, "ClusterRole") and not find(docs, "ClusterRoleBinding")
    watched = set(next(s for s in sets if "namespaces=" in s).split("=", 1)[1].strip("{}").split(","))
    for role in find(docs, "Role"):
        for rule in role["rules"]:
            if {"secrets", "events"} & set(rule["resources"]):
                assert role["metadata"]["namespace"] in watched | {NAMESPACE}, role["metadata"]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("generator.capi.namespaces={--kubeconfig}", "generator.capi.namespaces.0: Does not match pattern"),
        ("generator.capi.namespaces={Team_A}", "generator.capi.namespaces.0: Does not match pattern"),
        ("generator.capi.copyLabels={argocd.argoproj.io/secret-type}", "generator.capi.copyLabels.0"),
        ("generator.capi.copyLabels={argocd-lifecycle.io/*}", "generator.capi.copyLabels.0"),
        ("generator.capi.copyLabels={env value}", "generator.capi.copyLabels.0: Does not match pattern"),
        # every label a tenant sets would reach the cluster Secret
        ("generator.capi.copyLabels={*}", "generator.capi.copyLabels.0: Does not match pattern"),
        ("generator.capi.copyLabels={env*}", "generator.capi.copyLabels.0: Does not match pattern"),
        ("generator.capi.allowServers={--kubeconfig=/x}", "generator.capi.allowServers.0: Does not match pattern"),
        ("generator.capi.denyServers={-x}", "generator.capi.denyServers.0: Does not match pattern"),
        ("generator.capi.wat=1", "Additional property wat is not allowed"),
    ],
)
def test_the_schema_refuses_what_would_become_a_flag_or_a_foreign_label(value: str, problem: str) -> None:
    assert problem in render_error(sets=("generator.capi.enabled=true", "generator.capi.namespaces={a}", value))


def test_a_bare_glob_or_a_reserved_key_is_refused_even_without_the_schema() -> None:
    sets = ("generator.capi.enabled=true", "generator.capi.namespaces={a}", "generator.capi.copyLabels={*}")
    assert 'generator.capi.copyLabels: "*" is neither a label key nor prefix/*' in refused_without_schema(sets)
    sets = (*sets[:2], "generator.capi.copyLabels={argocd.argoproj.io/*}")
    assert "\"argocd.argoproj.io/*\" is Argo CD's or argocd-lifecycle's own" in refused_without_schema(sets)


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
            # argocd.install creates it too (the e2e's tenants): there either way
            created = http.post("/api/v1/namespaces", json={"metadata": {"name": "team-b"}})
            if created.status_code != 409:
                created.raise_for_status()
        real.apply_all(render(sets=ON))
        _policy_in_force(real)
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


def _policy_in_force(real: RealApi) -> None:
    """Wait until the CAPI policy refuses (probed with a dry run): it is loaded a moment after it is created."""
    body = _own("probe", config=_config({**EXEC, **TLS}))
    with real.as_account(ACCOUNT) as http:

        def refusing() -> bool:
            resp = http.post(f"/api/v1/namespaces/{NAMESPACE}/secrets", json=body, params={"dryRun": "All"})
            return resp.status_code == 403 and f"{CAPI}.{NAMESPACE}" in status_message(resp)

        wait_until(refusing, timeout=60, what="the Cluster API admission policy to be in force")


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


def _initialised(admin: Any, stem: str, name: str) -> dict[str, Any]:
    """A CAPI Cluster whose control plane is initialised (its status written as CAPI would)."""
    doc = capi.fixture(stem, name=name)
    status = doc.pop("status")
    doc["metadata"].pop("uid")
    created: dict[str, Any] = admin.apply(doc)
    admin.resource(doc["apiVersion"], "Cluster").subresources["status"].patch(
        name=name, namespace=capi.NAMESPACE, body={"status": status}, content_type="application/merge-patch+json"
    )
    return created


def test_the_generator_as_its_account_registers_and_retires_a_capi_cluster_and_never_an_impersonation(
    api: RealApi, tmp_path: Path
) -> None:
    """The generator as the chart runs it, with the chart's RBAC and policies. Beside the real workload
    cluster, two tenants' kubeconfigs (finding 1): one names https://kubernetes.default.svc with a client
    certificate and no token (Argo CD would answer it with its own account), one copies the server of a
    hand-written cluster Secret. Neither becomes a Secret; each CAPI Cluster gets a Warning saying why."""
    admin = api.admin
    admin.refresh_discovery()
    edge = LoopbackCluster(tmp_path / "pki", "workload-1").start()
    hand = LoopbackCluster(tmp_path / "pki-hand", "by-hand").start()
    admin.apply(hand.secret(secret_name="cluster-by-hand"))
    token_file = tmp_path / "token"
    token_file.write_text("plugin-token-for-the-test")
    sup = Supervisor(tmp_path / "logs")
    proc = sup.start("generator", _generator_argv(api, token_file, free_port()))
    name = f"{SECRET_PREFIX}capi-clusters.workload-1"
    attacks = {
        "inside-1": ("https://kubernetes.default.svc", "the management cluster's in-cluster API server"),
        "copycat": (hand.url, "also the server of cluster Secret argocd/cluster-by-hand"),
    }
    try:
        created = _initialised(admin, "cluster-topology", "workload-1")
        admin.apply(capi.kubeconfig_secret(created, capi.kubeconfig("workload-1", edge.url, edge.ca.pem,
                                                                    token=edge.sim.token)))  # fmt: skip
        client = api.cluster.admin  # a client certificate, no token
        for attacker, (server, _) in attacks.items():
            cluster = _initialised(admin, "cluster-plain", attacker)
            config = capi.kubeconfig(attacker, server, edge.ca.pem, cert_pem=client.cert_pem, key_pem=client.key_pem)
            admin.apply(capi.kubeconfig_secret(cluster, config))

        def phase() -> str | None:
            proc.check_alive()
            secret = admin.get("v1", "Secret", name, NAMESPACE)
            return ((secret or {}).get("metadata", {}).get("annotations") or {}).get("argocd-lifecycle.io/phase")

        wait_until(lambda: phase() == "Ready" or None, timeout=90, what="the CAPI cluster's Secret to turn Ready")
        events = admin.list("v1", "Event", capi.NAMESPACE)
        assert any(e["reason"] == "ClusterReady" and e["involvedObject"]["kind"] == "Cluster" for e in events)
        for attacker, (_, why) in attacks.items():

            def refused(who: str = attacker) -> list[dict[str, Any]]:
                return [e for e in admin.list("v1", "Event", capi.NAMESPACE)
                        if e["reason"] == "ClusterServerRefused" and e["involvedObject"]["name"] == who]  # fmt: skip

            event = wait_until(lambda: refused() or None, timeout=30, what=f"{attacker}'s Warning")[0]
            assert event["type"] == "Warning" and why in event["message"], event["message"]
            assert admin.get("v1", "Secret", f"{SECRET_PREFIX}capi-clusters.{attacker}", NAMESPACE) is None

        admin.delete(created["apiVersion"], "Cluster", "workload-1", capi.NAMESPACE)  # finalizer: deleting
        wait_until(lambda: phase() == "Decommissioning" or None, timeout=60, what="Decommissioning")
        admin.delete("v1", "Secret", "workload-1-kubeconfig", capi.NAMESPACE)
        wait_until(lambda: admin.get("v1", "Secret", name, NAMESPACE) is None or None, timeout=60,
                   what="the generator to delete its Secret")  # fmt: skip
        time.sleep(1)
    finally:
        sup.stop_all()
        for cluster in ("workload-1", *attacks):
            if admin.get(V1B2, "Cluster", cluster, capi.NAMESPACE) is not None:
                admin.merge_patch(
                    V1B2, "Cluster", cluster, {"metadata": {"finalizers": None}}, namespace=capi.NAMESPACE
                )
                admin.delete(V1B2, "Cluster", cluster, capi.NAMESPACE)
            admin.delete("v1", "Secret", f"{cluster}-kubeconfig", capi.NAMESPACE)
        admin.delete("v1", "Secret", "cluster-by-hand", NAMESPACE)
        edge.stop()
        hand.stop()
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


def _config(value: dict[str, Any]) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))  # as the generator writes it


GOOD_CONFIG = _config({"bearerToken": "eyJhbGciOi.payload-part_1~x+y/z==", "tlsClientConfig": {"insecure": False}})


def _own(
    cluster: str = "evil",
    *,
    server: str = "https://10.0.0.2:6443",
    config: str = GOOD_CONFIG,
    name: str | None = None,
    labels: dict[str, str] | None = None,
    extra: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A Secret shaped as the CAPI source writes one (``capi.capi-clusters.<cluster>``), to be spoiled."""
    data = {"name": name or f"{cluster}.capi-clusters", "server": server, "config": config, **(extra or {})}
    meta = {"name": f"{SECRET_PREFIX}capi-clusters.{cluster}", "namespace": NAMESPACE,
            "labels": {**OURS, "env": "prod", **(labels or {})}}  # fmt: skip
    return {"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": meta,
            "data": {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}}  # fmt: skip


EXEC = {"execProviderConfig": {"command": "sh", "args": ["-c", "id"], "apiVersion": "client.authentication.k8s.io/v1"}}
CONFIG_REFUSED = "config holds no exec, AWS, proxy or basic-auth settings (in any spelling)"
SERVER_REFUSED = "server is never the in-cluster API server (Argo CD would use its own account)"
INSECURE = '"tlsClientConfig":{"insecure":false}'
TLS = {"tlsClientConfig": {"insecure": False}}
LONG_S = "\u017f"  # folds to "s" in Go's encoding/json key matching
CAP = 63 * 1024  # the config's cap in bytes (secret_rules.MAX_BYTES)


@pytest.mark.parametrize(
    ("what", "body", "message"),
    [
        # finding 4 as found: Argo CD would run `sh` with its own account's reach, against itself
        ("an exec config and the in-cluster server", _own(server="https://kubernetes.default.svc",
         config=_config({**EXEC, **TLS})), SERVER_REFUSED),  # the first rule it breaks speaks
        ("an exec config", _own(config=_config({**EXEC, **TLS})), CONFIG_REFUSED),
        # spellings Go's encoding/json reads as execProviderConfig, username, password
        ("a key in another case", _own(config='{"ExecProviderConfig":{"command":"sh"},' + INSECURE[1:] + "}"),
         CONFIG_REFUSED),
        ("a key with a \\u escape", _own(config='{"\\u0065xecProviderConfig":{"command":"sh"},' + INSECURE + "}"),
         CONFIG_REFUSED),
        ("keys with a Unicode fold (long s)",
         _own(config=f'{{"bearerToken":"x",{INSECURE},"u{LONG_S}ername":"a","pa{LONG_S * 2}word":"b"}}'),
         CONFIG_REFUSED),
        ("AWS auth", _own(config=_config({"awsAuthConfig": {"clusterName": "x"}, **TLS})), CONFIG_REFUSED),
        ("a proxy", _own(config=_config({"proxyUrl": "http://10.0.0.9:3128", **TLS})), CONFIG_REFUSED),
        ("basic auth", _own(config=_config({"password": "x", **TLS, "username": "a"})), CONFIG_REFUSED),
        ("a key in capitals with spaces", _own(config='{ "PASSWORD" : "x", ' + INSECURE + "}"), CONFIG_REFUSED),
        # finding 1 at the second wall: Argo CD answers this server without a token with its own account
        ("the in-cluster server", _own(server="https://kubernetes.default.svc"), SERVER_REFUSED),
        ("the in-cluster server by its long name", _own(server="https://kubernetes.default.svc.cluster.local:443/"),
         SERVER_REFUSED),
        ("the in-cluster server in capitals", _own(server="HTTPS://KUBERNETES.DEFAULT.SVC"), SERVER_REFUSED),
        ("the in-cluster server with a trailing dot", _own(server="https://kubernetes.default.svc."), SERVER_REFUSED),
        ("the in-cluster server escaped", _own(server="https://%6bubernetes.default.svc"), SERVER_REFUSED),
        ("a server with credentials", _own(server="https://a:b@10.0.0.2"), SERVER_REFUSED),
        ("a project the cluster is scoped to", _own(extra={"project": "platform"}),
         "holds only the data keys name, server and config"),
        ("an exec config as stringData", {**_own(config=""), "stringData": {"config": _config({**EXEC, **TLS})}},
         CONFIG_REFUSED),
        ("a config past the cap", _own(config=_config({"bearerToken": "x" * CAP, **TLS})), "is at most 64512 bytes"),
        ("a label not copied", _own(labels={"team.example/owner": "evil"}), "carries only its two fixed labels"),
    ],
)  # fmt: skip
def test_the_account_cannot_write_a_cluster_secret_argo_cd_would_run_or_trust_with_its_own_account(
    api: RealApi, what: str, body: dict[str, Any], message: str
) -> None:
    with api.as_account(ACCOUNT) as http:
        resp = http.post(f"/api/v1/namespaces/{NAMESPACE}/secrets", json=body)
    assert resp.status_code == 403, f"{what}: {resp.status_code} {resp.text[:300]}"
    assert message in status_message(resp), f"{what}: {status_message(resp)}"
    assert api.admin.get("v1", "Secret", body["metadata"]["name"], NAMESPACE) is None


MERGE = {"Content-Type": "application/merge-patch+json"}


def test_what_the_generator_writes_passes_and_cannot_be_turned_into_exec_afterwards(api: RealApi) -> None:
    ca = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").decode()
    tls = {"caData": ca, "certData": ca, "insecure": False, "keyData": ca, "serverName": "api.workload.internal"}
    good = _own("good", config=_config({"tlsClientConfig": tls}), labels={"topology.example.com/zone": "a"})
    path = f"/api/v1/namespaces/{NAMESPACE}/secrets"
    with api.as_account(ACCOUNT) as http:
        created = http.post(path, json=good)
        assert created.status_code == 201, status_message(created)
        spoiled = {"data": {"config": base64.b64encode(_config({**EXEC, "tlsClientConfig": tls}).encode()).decode()}}
        resp = http.patch(f"{path}/{good['metadata']['name']}", json=spoiled, headers=MERGE)
        assert resp.status_code == 403 and CONFIG_REFUSED in status_message(resp), status_message(resp)
        resp = http.patch(f"{path}/{good['metadata']['name']}", json={"metadata": {"labels": {"team": "x"}}},
                          headers=MERGE)  # fmt: skip
        assert resp.status_code == 403 and "carries only its two fixed labels" in status_message(resp)
        # what someone with more rights put there stays, and the generator still writes its annotations
        planted = {"metadata": {"labels": {"team": "x"}}, "data": {"project": base64.b64encode(b"platform").decode()}}
        api.admin.merge_patch("v1", "Secret", good["metadata"]["name"], planted, namespace=NAMESPACE)
        resp = http.patch(f"{path}/{good['metadata']['name']}", headers=MERGE,
                          json={"metadata": {"annotations": {"argocd-lifecycle.io/capi-workers": "3"}}})  # fmt: skip
        assert resp.status_code == 200, status_message(resp)
        assert http.delete(f"{path}/{good['metadata']['name']}").status_code == 200


def test_a_config_at_its_cap_passes_within_the_api_servers_cel_cost_limit(api: RealApi) -> None:
    """Each pattern over a config at its cap stays under the API server's cost limit for one expression
    (past it the answer would be a cost error: a real cluster's long CA bundle refused for no reason)."""
    token = ("abcdefghijklmnopqrstuvwxyz0123456789" * CAP)[: CAP - len(_config({"bearerToken": "", **TLS}))]
    body = _own("at-the-cap", config=_config({"bearerToken": token, **TLS}))
    assert len(base64.b64decode(body["data"]["config"])) == CAP
    with api.as_account(ACCOUNT) as http:
        resp = http.post(f"/api/v1/namespaces/{NAMESPACE}/secrets", json=body, params={"dryRun": "All"})
    assert resp.status_code == 201, status_message(resp)[:300]


@pytest.mark.parametrize(
    ("what", "method", "path", "body"),
    [
        ("list every Secret of the cluster", "GET", "/api/v1/secrets", None),
        ("read a planted kube-system Secret", "GET", "/api/v1/namespaces/kube-system/secrets/planted", None),
        ("list kube-system's Secrets", "GET", "/api/v1/namespaces/kube-system/secrets", None),
        ("create an Event elsewhere", "POST", "/api/v1/namespaces/kube-system/events",
         {"metadata": {"name": "forged.1"}, "involvedObject": {"kind": "Pod", "name": "x", "namespace": "kube-system"},
          "reason": "Forged", "message": "forged", "type": "Warning"}),
    ],
)  # fmt: skip
def test_the_account_reads_no_secret_and_writes_no_event_outside_its_namespaces(
    api: RealApi, what: str, method: str, path: str, body: dict[str, Any] | None
) -> None:
    api.admin.apply({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "planted", "namespace": "kube-system"},
                     "stringData": {"password": "hunter2"}})  # fmt: skip
    with api.as_account(ACCOUNT) as http:
        resp = http.request(method, path, json=body)
        assert resp.status_code == 403 and "cannot" in status_message(resp), f"{what}: {resp.text[:300]}"
        assert "hunter2" not in resp.text
        # where it watches, it may: the kubeconfig Secrets, and Events on the CAPI Clusters
        assert http.get(f"/api/v1/namespaces/{capi.NAMESPACE}/secrets").status_code == 200
