"""The token Secrets come from the secret-init hook Job, never from a render: the Job's own argv runs
`argocd-lifecycle ensure-secret` as the Job's ServiceAccount on the real kube-apiserver, with the
Role and the admission policy the chart renders for it (RBAC cannot limit `create` to names; the policy
limits it to the generated Secrets, of type Opaque)."""

from __future__ import annotations

import base64
import subprocess
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.harness import paths
from tests.harness.procs import wait_until
from tests.integration.chart.chartkit import OLD_CLUSTER_SETS, find, one, render, render_error
from tests.integration.chart.realapi import NAMESPACE, RealApi, status_message

pytestmark = pytest.mark.upstream

JOB = "argocd-lifecycle-secret-init"
POLICY = f"{JOB}.{NAMESPACE}"
TOKEN_SECRET = "argocd-lifecycle-generator-token"
SECRETS = f"/api/v1/namespaces/{NAMESPACE}/secrets"


def run_container(api: RealApi, container: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    argv = [str(paths.our_cli()), *container["args"], "--kubeconfig", str(api.kubeconfig_for(JOB))]
    return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=60)


def token_secret(api: RealApi) -> dict[str, Any]:
    found = api.admin.get("v1", "Secret", TOKEN_SECRET, NAMESPACE)
    assert found is not None
    return found


def test_the_job_creates_the_token_once_and_never_changes_it(real_api: RealApi) -> None:
    api = real_api
    (container,) = one(render(), "Job", JOB)["spec"]["template"]["spec"]["containers"]
    assert api.admin.get("v1", "Secret", TOKEN_SECRET, NAMESPACE) is None  # nothing rendered it

    first = run_container(api, container)
    assert first.returncode == 0, first.stderr
    assert first.stdout == f"created Secret {NAMESPACE}/{TOKEN_SECRET} with keys token\n"
    secret = token_secret(api)
    token = base64.b64decode(secret["data"]["token"])
    assert len(token) == 48 and token.isalnum()
    assert token.decode() not in first.stdout + first.stderr
    # Argo CD resolves `$<secret>:<key>` only from Secrets labelled part-of argocd; Helm keeps it
    assert secret["metadata"]["labels"]["app.kubernetes.io/part-of"] == "argocd"
    assert secret["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"

    again = run_container(api, container)  # every later install, upgrade and Argo CD sync
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"kept Secret {NAMESPACE}/{TOKEN_SECRET}")
    assert token_secret(api)["data"] == secret["data"]
    assert token_secret(api)["metadata"]["resourceVersion"] == secret["metadata"]["resourceVersion"]

    # a key someone emptied is generated again; what else they keep there stays
    api.admin.merge_patch("v1", "Secret", TOKEN_SECRET, {"data": {"token": "", "note": "a2VlcA=="}}, NAMESPACE)
    third = run_container(api, container)
    assert third.returncode == 0 and "added keys token" in third.stdout, third.stdout + third.stderr
    data = token_secret(api)["data"]
    assert data["note"] == "a2VlcA==" and len(base64.b64decode(data["token"])) == 48


def test_a_concurrent_writer_is_not_overwritten(real_api: RealApi, monkeypatch: pytest.MonkeyPatch) -> None:
    from argocd_lifecycle.app.secret_init import SecretSpec, ensure
    from argocd_lifecycle.kube.client import Kube, KubeSettings, connect

    api = real_api
    (container,) = one(render(), "Job", JOB)["spec"]["template"]["spec"]["containers"]
    assert run_container(api, container).returncode == 0  # it exists (this test may run alone)
    api.admin.merge_patch("v1", "Secret", TOKEN_SECRET, {"data": {"token": ""}}, NAMESPACE)
    kube = connect(KubeSettings(str(api.kubeconfig_for(JOB))))
    real_call = Kube.call
    calls: list[str] = []

    def call(self: Kube, what: str, *args: object, **kwargs: object) -> object:
        calls.append(what.split(maxsplit=1)[0])
        out = real_call(self, what, *args, **kwargs)
        if calls == ["read"]:  # someone writes between our first read and our update
            api.admin.merge_patch(
                "v1", "Secret", TOKEN_SECRET, {"metadata": {"labels": {"rotated": "by-ops"}}}, NAMESPACE
            )
        return out

    monkeypatch.setattr(Kube, "call", call)
    spec = SecretSpec(NAMESPACE, TOKEN_SECRET, {"token": 48}, {"app.kubernetes.io/part-of": "argocd"})
    assert ensure(kube, spec) == f"kept Secret {NAMESPACE}/{TOKEN_SECRET}: added keys token"
    assert calls == ["read", "complete", "read", "complete"]  # the first update was refused with a 409
    secret = token_secret(api)
    assert secret["metadata"]["labels"]["rotated"] == "by-ops"  # their write survived our retry
    assert len(base64.b64decode(secret["data"]["token"])) == 48


def test_the_jobs_account_reads_only_its_secrets(real_api: RealApi) -> None:
    with real_api.as_account(JOB) as client:
        resp = client.get(f"/api/v1/namespaces/{NAMESPACE}/secrets/argocd-secret")
        assert resp.status_code == 403, status_message(resp)
        assert client.get(f"/api/v1/namespaces/{NAMESPACE}/secrets").status_code == 403


def test_what_the_job_creates_is_what_the_generator_and_argo_cd_read() -> None:
    docs = render()
    (container,) = one(docs, "Job", JOB)["spec"]["template"]["spec"]["containers"]
    args = container["args"]
    name, key = args[1], args[args.index("--key") + 1].split(":")[0]
    assert one(docs, "ConfigMap", "argocd-lifecycle-generator")["data"]["token"] == f"${name}:{key}"
    pod = one(docs, "Deployment")["spec"]["template"]["spec"]
    assert next(v for v in pod["volumes"] if v["name"] == "token")["secret"]["secretName"] == name
    role = one(docs, "Role", JOB)
    assert role["rules"][0]["resourceNames"] == [name]


def test_the_receiver_secret_is_generated_by_the_same_job() -> None:
    docs = render(values=("all-enabled-values.yaml",))
    job = one(docs, "Job", JOB)
    secrets = [c["args"][1] for c in job["spec"]["template"]["spec"]["containers"]]
    assert secrets == [TOKEN_SECRET, "argocd-lifecycle-receiver-inbound"]
    inbound = job["spec"]["template"]["spec"]["containers"][1]["args"]
    keys = [inbound[i + 1] for i, a in enumerate(inbound) if a == "--key"]
    assert keys == ["token:48", "lifecycle-hmac:64", "external-hmac:64"]  # a secret per signed sender
    assert one(docs, "Role", JOB)["rules"][0]["resourceNames"] == secrets


def test_existing_secrets_need_no_job() -> None:
    sets = ("pluginGenerator.token.existingSecret=my-token",)
    assert not find(render(sets=sets), "Job")
    docs = render(values=("all-enabled-values.yaml",), sets=sets)
    (container,) = one(docs, "Job", JOB)["spec"]["template"]["spec"]["containers"]
    assert container["args"][1] == "argocd-lifecycle-receiver-inbound"


def test_the_hooks_run_before_install_and_upgrade_and_go_away() -> None:
    docs = [d for d in render() if d["metadata"]["name"] in (JOB, POLICY)]
    assert sorted(d["kind"] for d in docs) == [
        "Job", "Role", "RoleBinding", "ServiceAccount", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
    ]  # fmt: skip
    weights = {"ValidatingAdmissionPolicy": "-20", "ValidatingAdmissionPolicyBinding": "-20", "Job": "0"}
    for doc in docs:
        annotations = doc["metadata"]["annotations"]
        assert annotations["helm.sh/hook"] == "pre-install,pre-upgrade"  # Argo CD: PreSync
        # a failed hook leaves nothing behind in Argo CD, and in Helm at least not the Job and its pod
        assert annotations["helm.sh/hook-delete-policy"] == "before-hook-creation,hook-succeeded,hook-failed"
        # the policy exists before the account has any right, the account and its Role before the Job
        # (Helm: weight order, and the reverse when deleting; Argo CD: waves)
        assert annotations["helm.sh/hook-weight"] == weights.get(doc["kind"], "-10")


def test_the_policy_names_the_jobs_account_and_its_secrets() -> None:
    docs = render(values=("all-enabled-values.yaml",))
    policy = one(docs, "ValidatingAdmissionPolicy", POLICY)
    account = one(docs, "Job", JOB)["spec"]["template"]["spec"]["serviceAccountName"]
    (condition,) = policy["spec"]["matchConditions"]
    assert condition["expression"] == f'request.userInfo.username == "system:serviceaccount:{NAMESPACE}:{account}"'
    names = one(docs, "Role", JOB)["rules"][0]["resourceNames"]
    assert policy["spec"]["validations"][0]["expression"] == (
        f'request.namespace == "{NAMESPACE}" && object.metadata.name in ["{names[0]}","{names[1]}"]'
    )
    assert one(docs, "ValidatingAdmissionPolicyBinding", POLICY)["spec"]["policyName"] == POLICY


def test_the_policy_needs_1_30_or_is_turned_off() -> None:
    assert "set secretInit.admissionPolicy.enabled=false there" in render_error(
        kube_version="1.29.9", sets=("generator.admissionPolicy.enabled=false",)
    )
    off = render(kube_version="1.29.9", sets=(*OLD_CLUSTER_SETS,))
    assert find(off, "Job", JOB) and not find(off, "ValidatingAdmissionPolicy")
    # no generated Secret, no Job, no policy
    assert not find(
        render(sets=("pluginGenerator.token.existingSecret=my-token",)), "ValidatingAdmissionPolicy", POLICY
    )


@pytest.fixture(scope="module")
def hook_account(real_api: RealApi) -> Iterator[httpx.Client]:
    """Requests with a real token of the Job's ServiceAccount, once the rendered policy is in force
    (without one, at once: the attacks below then show what RBAC alone lets through)."""
    with real_api.as_account(JOB) as client:

        def enforced() -> bool:
            resp = client.post(SECRETS, params={"dryRun": "All"}, json=secret("policy-probe"))
            return resp.status_code == 403 and POLICY in status_message(resp)

        if real_api.admin.get("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy", POLICY) is not None:
            wait_until(enforced, timeout=60, what="the secret-init admission policy to be in force")
        yield client


def secret(name: str, kind: str = "Opaque", annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta = {"name": name, "namespace": NAMESPACE, "annotations": annotations or {}}
    return {"apiVersion": "v1", "kind": "Secret", "metadata": meta, "type": kind, "stringData": {"x": "y"}}


#: what the token controller fills with a token of the named account (Argo CD's controller may do anything)
CONTROLLER = {"kubernetes.io/service-account.name": "argocd-application-controller"}


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (
            secret("controller-token", "kubernetes.io/service-account-token", CONTROLLER),
            "only the Secrets it generates",
        ),
        # its own name does not make another type pass
        (secret(TOKEN_SECRET, "kubernetes.io/service-account-token", CONTROLLER), "only Secrets of type Opaque"),
        (secret(TOKEN_SECRET, "example.com/not-opaque"), "only Secrets of type Opaque"),
        (secret("planted"), "only the Secrets it generates, in argocd: argocd-lifecycle-generator-token"),
    ],
    ids=["service-account-token", "service-account-token-under-its-name", "other-type-under-its-name", "other-name"],
)
def test_the_jobs_account_creates_no_other_secret(
    hook_account: httpx.Client, real_api: RealApi, body: dict[str, Any], reason: str
) -> None:
    name = body["metadata"]["name"]
    if name == TOKEN_SECRET:
        real_api.admin.delete("v1", "Secret", TOKEN_SECRET, NAMESPACE)  # so only the policy can refuse
    resp = hook_account.post(SECRETS, json=body)
    message = status_message(resp)
    assert resp.status_code == 403, f"{resp.status_code}: {message}"
    assert f"ValidatingAdmissionPolicy '{POLICY}'" in message and reason in message, message
    assert real_api.admin.get("v1", "Secret", name, NAMESPACE) is None


def test_the_jobs_own_writes_pass_the_policy(hook_account: httpx.Client, real_api: RealApi) -> None:
    api = real_api
    (container,) = one(render(), "Job", JOB)["spec"]["template"]["spec"]["containers"]
    api.admin.delete("v1", "Secret", TOKEN_SECRET, NAMESPACE)
    created = run_container(api, container)
    assert created.returncode == 0 and created.stdout.startswith("created Secret"), created.stderr
    assert token_secret(api)["type"] == "Opaque"
    api.admin.merge_patch("v1", "Secret", TOKEN_SECRET, {"data": {"token": ""}}, NAMESPACE)
    completed = run_container(api, container)  # an update under the policy
    assert completed.returncode == 0 and "added keys token" in completed.stdout, completed.stderr
    # the account still reaches nothing outside its Role: another namespace stops at RBAC
    resp = hook_account.post("/api/v1/namespaces/kube-system/secrets", json=secret(TOKEN_SECRET))
    assert resp.status_code == 403 and "cannot" in status_message(resp)
