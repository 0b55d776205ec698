"""Names, labels and the wiring between objects: selectors match, references resolve."""

from __future__ import annotations

import pytest

from tests.integration.chart.chartkit import NAMESPACE, SCENARIOS, find, one, outside_the_release_namespace, render

pytestmark = pytest.mark.upstream

COMMON = {
    "helm.sh/chart": "argocd-lifecycle-0.1.0",
    "app.kubernetes.io/name": "argocd-lifecycle",
    "app.kubernetes.io/version": "0.1.0",
    "app.kubernetes.io/managed-by": "Helm",
}


CLUSTER_SCOPED = {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_object_is_labelled_and_named_for_the_release(scenario: str) -> None:
    for doc in render(values=(scenario,)):
        meta = doc["metadata"]
        labels = meta["labels"]
        assert COMMON.items() <= labels.items(), meta["name"]
        assert labels["app.kubernetes.io/instance"] == "argocd-lifecycle"
        assert labels["app.kubernetes.io/component"]
        assert meta["name"].startswith("argocd-lifecycle"), meta["name"]
        if doc["kind"] in CLUSTER_SCOPED:
            # one per release and namespace: two Argo CDs in one cluster must not share it
            assert "namespace" not in meta and meta["name"] in (
                f"argocd-lifecycle-generator.{NAMESPACE}",
                f"argocd-lifecycle-secret-init.{NAMESPACE}",
            )
        else:
            assert meta["namespace"] == NAMESPACE or outside_the_release_namespace(doc, scenario), meta["name"]
            assert len(meta["name"]) <= 63


def test_release_name_and_overrides() -> None:
    names = {d["metadata"]["name"] for d in render(release="prod")}
    assert "prod-argocd-lifecycle-generator" in names
    names = {d["metadata"]["name"] for d in render(release="prod", sets=("fullnameOverride=lc",))}
    assert "lc-generator" in names and "lc-plugin" in names
    docs = render(release="prod", sets=("nameOverride=life",))
    assert "prod-life-generator" in {d["metadata"]["name"] for d in docs}
    assert {d["metadata"]["labels"]["app.kubernetes.io/name"] for d in docs} == {"life"}
    docs = render(sets=("namespaceOverride=gitops",))
    assert {d["metadata"].get("namespace") for d in docs} == {"gitops", None}
    policy = one(docs, "ValidatingAdmissionPolicy", "argocd-lifecycle-generator.gitops")
    assert (
        policy["spec"]["matchConditions"][0]["expression"]
        == 'request.userInfo.username == "system:serviceaccount:gitops:argocd-lifecycle-generator"'
    )
    hook = one(docs, "ValidatingAdmissionPolicy", "argocd-lifecycle-secret-init.gitops")
    assert (
        "system:serviceaccount:gitops:argocd-lifecycle-secret-init" in hook["spec"]["matchConditions"][0]["expression"]
    )
    deployment = one(docs, "Deployment")
    args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
    assert args[args.index("--namespace") + 1] == "gitops"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_selectors_find_their_pods(scenario: str) -> None:
    docs = render(values=(scenario,))
    pods = {d["metadata"]["name"]: d["spec"]["template"]["metadata"]["labels"] for d in find(docs, "Deployment")}
    for deployment in find(docs, "Deployment"):
        selector = deployment["spec"]["selector"]["matchLabels"]
        assert selector.items() <= pods[deployment["metadata"]["name"]].items()
        # one component's selector never matches another's pods
        others = [labels for name, labels in pods.items() if name != deployment["metadata"]["name"]]
        assert not any(selector.items() <= labels.items() for labels in others)
    for kind, path in (("Service", ("spec", "selector")), ("PodDisruptionBudget", ("spec", "selector", "matchLabels"))):
        for doc in find(docs, kind):
            selector = doc
            for key in path:
                selector = selector[key]
            assert selector.items() <= pods[doc["metadata"]["name"]].items(), doc["metadata"]["name"]
    for policy in find(docs, "NetworkPolicy"):
        assert policy["spec"]["podSelector"]["matchLabels"].items() <= pods[policy["metadata"]["name"]].items()
    for monitor in find(docs, "ServiceMonitor"):
        service = one(docs, "Service", monitor["metadata"]["name"])
        assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
        assert monitor["spec"]["endpoints"][0]["port"] == service["spec"]["ports"][0]["name"]


def test_plugin_generator_configmap_points_at_the_generator_and_its_token() -> None:
    docs = render()
    config = one(docs, "ConfigMap", "argocd-lifecycle-generator").get("data")
    service = one(docs, "Service", "argocd-lifecycle-generator")
    assert config == {
        "baseUrl": f"http://argocd-lifecycle-generator.{NAMESPACE}.svc:{service['spec']['ports'][0]['port']}",
        "token": "$argocd-lifecycle-generator-token:token",
        "requestTimeout": "10",
    }
    # the Secret itself is created by the secret-init hook Job (test_chart_secret_init.py), never rendered
    assert not find(docs, "Secret")
    (ensure,) = one(docs, "Job", "argocd-lifecycle-secret-init")["spec"]["template"]["spec"]["containers"]
    # Argo CD resolves `$<secret>:<key>` only in Secrets labelled part-of argocd
    assert ensure["args"][:2] == ["ensure-secret", "argocd-lifecycle-generator-token"]
    assert "app.kubernetes.io/part-of=argocd" in ensure["args"]
    pod = one(docs, "Deployment")["spec"]["template"]["spec"]
    volume = next(v for v in pod["volumes"] if v["name"] == "token")
    assert volume["secret"]["secretName"] == "argocd-lifecycle-generator-token"
    mount = next(m for m in pod["containers"][0]["volumeMounts"] if m["name"] == "token")
    args = pod["containers"][0]["args"]
    assert args[args.index("--token-file") + 1] == f"{mount['mountPath']}/token"
    assert "subPath" not in mount  # a rotated token reaches the running pod


def test_existing_token_secret_is_used_and_not_created() -> None:
    docs = render(sets=("pluginGenerator.token.existingSecret=my-token", "pluginGenerator.token.secretKey=bearer"))
    assert not find(docs, "Secret") and not find(docs, "Job")
    config = one(docs, "ConfigMap", "argocd-lifecycle-generator")["data"]
    assert config["token"] == "$my-token:bearer"
    pod = one(docs, "Deployment")["spec"]["template"]["spec"]
    assert next(v for v in pod["volumes"] if v["name"] == "token")["secret"]["secretName"] == "my-token"
    args = pod["containers"][0]["args"]
    assert args[args.index("--token-file") + 1].endswith("/bearer")


def test_receiver_wiring() -> None:
    docs = render(values=("all-enabled-values.yaml",))
    receiver = one(docs, "Deployment", "argocd-lifecycle-receiver")
    pod = receiver["spec"]["template"]["spec"]
    container = pod["containers"][0]
    config = one(docs, "ConfigMap", "argocd-lifecycle-receiver")
    import yaml

    parsed = yaml.safe_load(config["data"]["config.yaml"])
    assert parsed["inbound"] == {
        "tokenFile": "/etc/argocd-lifecycle/receiver/inbound/token",
        "lifecycleSecretFile": "/etc/argocd-lifecycle/receiver/inbound/lifecycle-hmac",
        "externalSecretFile": "/etc/argocd-lifecycle/receiver/inbound/external-hmac",
    }
    inbound = next(v for v in pod["volumes"] if v["name"] == "inbound")["secret"]
    assert [i["key"] for i in inbound["items"]] == ["token", "lifecycle-hmac", "external-hmac"]
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    assert mounts["/etc/argocd-lifecycle/receiver/inbound"] == "inbound"
    assert mounts["/etc/argocd-lifecycle/receiver/secrets/dingtalk"] == "secret-dingtalk"
    assert mounts["/data"] == "data"
    claim = next(v for v in pod["volumes"] if v["name"] == "data")["persistentVolumeClaim"]["claimName"]
    assert one(docs, "PersistentVolumeClaim", claim)["spec"]["resources"]["requests"]["storage"] == "2Gi"
    # absolute (the pod's working directory is /tmp), on the volume, in a folder the receiver makes 0700
    assert container["args"][container["args"].index("--state") + 1] == "sqlite:////data/state/state.db"
    assert receiver["spec"]["strategy"]["type"] == "Recreate"
    # the generator signs lifecycle events with the receiver's lifecycle secret, held answers with the
    # external one: each is the file the receiver reads for that route
    generator = one(docs, "Deployment", "argocd-lifecycle-generator")["spec"]["template"]["spec"]
    args = generator["containers"][0]["args"]
    assert args[args.index("--receiver-url") + 1] == (
        f"http://argocd-lifecycle-receiver.{NAMESPACE}.svc:8080/v1/events/lifecycle"
    )
    hmac = next(v for v in generator["volumes"] if v["name"] == "receiver-hmac")
    assert hmac["secret"]["secretName"] == "argocd-lifecycle-receiver-inbound"
    mount = next(m for m in generator["containers"][0]["volumeMounts"] if m["name"] == "receiver-hmac")
    files = {i["key"]: f"{mount['mountPath']}/{i['path']}" for i in hmac["secret"]["items"]}
    assert args[args.index("--receiver-secret-file") + 1] == files["lifecycle-hmac"]
    assert args[args.index("--receiver-external-secret-file") + 1] == files["external-hmac"]
    assert {i["key"]: i["path"] for i in inbound["items"]}.keys() >= files.keys()


def test_receiver_on_redis_from_a_secret() -> None:
    docs = render(values=("ha-redis-values.yaml",))
    receiver = one(docs, "Deployment", "argocd-lifecycle-receiver")
    container = receiver["spec"]["template"]["spec"]["containers"][0]
    assert receiver["spec"]["replicas"] == 2
    assert receiver["spec"]["strategy"]["type"] == "RollingUpdate"
    assert container["args"][container["args"].index("--state") + 1] == "$(ARGOCD_LIFECYCLE_STATE_URL)"
    env = {e["name"]: e for e in container["env"]}
    assert env["ARGOCD_LIFECYCLE_STATE_URL"]["valueFrom"]["secretKeyRef"] == {
        "name": "argocd-lifecycle-redis",
        "key": "url",
    }
    assert not find(docs, "PersistentVolumeClaim")
    assert "/data" not in {m["mountPath"] for m in container["volumeMounts"]}


def test_config_change_rolls_the_receiver() -> None:
    base = ("ha-redis-values.yaml",)
    before = one(render(values=base), "Deployment", "argocd-lifecycle-receiver")
    after = one(
        render(values=base, sets=("receiver.config.dedupe.window=5m",)), "Deployment", "argocd-lifecycle-receiver"
    )
    key = "checksum/config"
    assert (
        before["spec"]["template"]["metadata"]["annotations"][key]
        != (after["spec"]["template"]["metadata"]["annotations"][key])
    )
