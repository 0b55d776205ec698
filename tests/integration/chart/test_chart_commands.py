"""The chart's containers start the real commands: their argv parses with the real click commands,
and the receiver's rendered config passes the receiver's own config parser."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.integration.chart.chartkit import SCENARIOS, find, one, render

pytestmark = pytest.mark.upstream


def command_for(args: list[str]):  # type: ignore[no-untyped-def]
    from argocd_lifecycle.app.cli import cli

    group = cli.get_command(None, args[0])  # type: ignore[arg-type]
    assert group is not None, f"no command {args[0]}"
    return group.commands[args[1]]  # type: ignore[attr-defined]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_container_args_parse_with_the_real_commands(scenario: str) -> None:
    docs = render(values=(scenario,))
    deployments = find(docs, "Deployment")
    assert deployments
    for deployment in deployments:
        container = deployment["spec"]["template"]["spec"]["containers"][0]
        assert "command" not in container  # the image's one entrypoint, argocd-lifecycle
        args = container["args"]
        ctx = command_for(args).make_context(args[1], list(args[2:]))
        port = container["ports"][0]["containerPort"]
        if args[0] == "generator":  # the pod's IP (expanded by the kubelet) and loopback, not every address
            assert ctx.params["listen"] == (f"$(POD_IP):{port}", f"127.0.0.1:{port}")
        else:
            assert ctx.params["listen"] == f"0.0.0.0:{port}"


def test_generator_settings_reach_the_command() -> None:
    docs = render(sets=("generator.probeInterval=30s", "generator.readyAfter=5", "generator.unreachableAfter=4"))
    args = one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
    params = command_for(args).make_context("serve", list(args[2:])).params
    assert (params["probe_interval"], params["ready_after"], params["unreachable_after"]) == (30.0, 5, 4)
    assert params["namespace"] == "argocd"
    assert params["plugin_configmap"] == "argocd-lifecycle-generator"
    assert params["identity"] == "$(POD_NAME)"  # expanded by the kubelet from the downward API


@pytest.mark.parametrize("scenario", ["ha-redis-values.yaml", "all-enabled-values.yaml"])
def test_receiver_config_passes_the_receivers_parser(scenario: str, tmp_path: Path) -> None:
    from argocd_lifecycle.notifications.receiver import config as receiver_config

    docs = render(values=(scenario,))
    text = one(docs, "ConfigMap", "argocd-lifecycle-receiver")["data"]["config.yaml"]
    # the files the pod would mount, under a scratch root
    root = "/etc/argocd-lifecycle/receiver"
    data = yaml.safe_load(text.replace(root, str(tmp_path)))
    inbound = [data["inbound"][k] for k in ("tokenFile", "lifecycleSecretFile", "externalSecretFile")]
    for number, path in enumerate(
        inbound + [r[k] for r in data["receivers"] for k in ("urlFile", "secretFile") if k in r]
    ):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("https://sink.example/hook" if path.endswith("url") else f"s3cr3t-{number}")
    parsed = receiver_config.parse(data, "config.yaml", tmp_path)
    assert [s.name for s in parsed.sinks] == [r["name"] for r in data["receivers"]]


def test_secret_init_args_parse_with_the_real_command() -> None:
    from argocd_lifecycle.app.cli import cli

    job = one(render(values=("all-enabled-values.yaml",)), "Job", "argocd-lifecycle-secret-init")
    for container in job["spec"]["template"]["spec"]["containers"]:
        args = container["args"]
        assert "command" not in container  # the image's entrypoint
        command = cli.get_command(None, args[0])  # type: ignore[arg-type]
        assert command is not None
        params = command.make_context(args[0], list(args[1:])).params
        assert params["namespace"] == "argocd" and params["keys"]


def test_the_receiver_admin_token_comes_from_its_own_secret(tmp_path: Path) -> None:
    from argocd_lifecycle.notifications.receiver import config as receiver_config

    values = ("all-enabled-values.yaml",)
    assert "admin" not in yaml.safe_load(
        one(render(values=values), "ConfigMap", "argocd-lifecycle-receiver")["data"]["config.yaml"]
    )  # without a Secret the administration routes are off
    docs = render(values=values, sets=("receiver.admin.existingSecret=receiver-admin",))
    data = yaml.safe_load(one(docs, "ConfigMap", "argocd-lifecycle-receiver")["data"]["config.yaml"])
    assert data["admin"] == {"tokenFile": "/etc/argocd-lifecycle/receiver/admin/token"}
    pod = one(docs, "Deployment", "argocd-lifecycle-receiver")["spec"]["template"]["spec"]
    mounts = {m["name"]: m["mountPath"] for m in pod["containers"][0]["volumeMounts"]}
    volume = next(v for v in pod["volumes"] if v["name"] == "admin")["secret"]
    assert mounts["admin"] == "/etc/argocd-lifecycle/receiver/admin"
    assert volume == {"secretName": "receiver-admin", "items": [{"key": "token", "path": "token"}]}
    # and the rendered config, with the files the pod would mount, passes the receiver's parser
    root = "/etc/argocd-lifecycle/receiver"
    data = yaml.safe_load(yaml.safe_dump(data).replace(root, str(tmp_path)))
    files = [data["inbound"][k] for k in ("tokenFile", "lifecycleSecretFile", "externalSecretFile")]
    files += [data["admin"]["tokenFile"]]
    files += [r[k] for r in data["receivers"] for k in ("urlFile", "secretFile") if k in r]
    for number, path in enumerate(files):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("https://sink.example/hook" if path.endswith("url") else f"s3cr3t-{number}")
    parsed = receiver_config.parse(data, "config.yaml", tmp_path)
    assert parsed.admin_token is not None and parsed.admin_token.matches("s3cr3t-3")
