"""Exec credential plugins (``execProviderConfig``) against a loopback HTTPS cluster: the client-go
protocol (KUBERNETES_EXEC_INFO, v1 and v1beta1 answers, a token or a client certificate, expiry and 401),
and every way a plugin or a Secret naming one can go wrong, each one clear probe error with reason auth."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.cluster_secrets import ExecPlugin, parse_secret
from argocd_lifecycle.generators.fleet.exec_credentials import ExecCredentials, ExecSettings, exec_info
from argocd_lifecycle.generators.fleet.metrics import error_kind
from argocd_lifecycle.generators.fleet.probe_result import ProbeResult
from argocd_lifecycle.generators.fleet.prober import Prober, ProberSettings
from tests.conftest import require_tool
from tests.integration.generators import aws_sts
from tests.integration.generators.loopback import LoopbackCluster

V1 = "client.authentication.k8s.io/v1"
V1BETA1 = "client.authentication.k8s.io/v1beta1"
TOKEN = "exec-token-7f3a"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.fixture
def cluster(tmp_path: Path, request):
    kw = {"token": TOKEN, **getattr(request, "param", {})}
    c = LoopbackCluster(tmp_path / "pki", "managed", **kw).start()
    yield c
    c.stop()


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    folder = tmp_path / "plugins"
    folder.mkdir()
    return folder


def plugin(folder: Path, name: str, body: str) -> Path:
    """A plugin script: Python run by this interpreter; ``body`` sees ``env``, ``out`` (the answer's file
    for the test to read) and ``emit(doc)``."""
    path = folder / name
    path.write_text(
        f"#!{sys.executable}\n"
        + textwrap.dedent(
            """\
            import json, os, sys, time
            env = dict(os.environ)
            out = os.path.join(os.path.dirname(sys.argv[0]), "seen.json")
            with open(out, "a") as fh:
                fh.write(json.dumps({"argv": sys.argv[1:], "env": env}) + "\\n")
            def emit(doc):
                sys.stdout.write(json.dumps(doc))
            """
        )
        + textwrap.dedent(body)
    )
    path.chmod(0o755)
    return path


def answer(api_version: str = V1, token: str = TOKEN, expires: datetime | None = None, **status: Any) -> str:
    st: dict[str, Any] = {"token": token, **status} if token else dict(status)
    if expires is not None:
        st["expirationTimestamp"] = expires.strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"emit({ {'kind': 'ExecCredential', 'apiVersion': api_version, 'status': st}!r})\n"


def exec_secret(cluster: LoopbackCluster, command: str, *, api_version: str = V1, **extra: Any) -> dict:
    cfg = {
        "execProviderConfig": {"command": command, "apiVersion": api_version, **extra},
        "tlsClientConfig": {"caData": b64(cluster.ca.pem)},
    }
    return cluster.secret(config=cfg)


def settings(plugins: Path, allowed: tuple[str, ...] = ("auth-plugin",), **kw: Any) -> ProberSettings:
    return ProberSettings(timeout=2.0, exec=ExecSettings(allowed=allowed, plugin_dirs=(str(plugins),), **kw))


def probe_n(secret: dict, prober_settings: ProberSettings, n: int = 1, between: Any = None) -> list[ProbeResult]:
    async def run() -> list[ProbeResult]:
        prober = Prober(prober_settings)
        results = []
        try:
            for i in range(n):
                if between is not None and i:
                    between()
                results.append((await prober.probe(parse_secret(secret)))[0])
        finally:
            await prober.aclose()
        return results

    return asyncio.run(run())


def seen(plugins: Path) -> list[dict]:
    path = plugins / "seen.json"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.parametrize("api_version", [V1, V1BETA1])
def test_token_plugin_reaches_ready_with_client_go_exec_info(
    cluster: LoopbackCluster, plugins: Path, api_version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin(plugins, "auth-plugin", answer(api_version))
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("ARGOCD_LIFECYCLE_SECRET_THING", "must-not-leak")
    secret = exec_secret(cluster, "auth-plugin", api_version=api_version, args=["get-token", "--x=1"], env={"ONE": "1"})
    [result] = probe_n(secret, settings(plugins))
    assert result.reachable and result.readyz_ok and not result.error, result.error
    [call] = seen(plugins)
    assert call["argv"] == ["get-token", "--x=1"]
    env = call["env"]
    assert json.loads(env["KUBERNETES_EXEC_INFO"]) == {
        "kind": "ExecCredential",
        "apiVersion": api_version,
        "spec": {"interactive": False},
    }
    assert env["KUBERNETES_EXEC_INFO"] == exec_info(api_version)
    assert env["ONE"] == "1" and env["AWS_REGION"] == "eu-west-1"
    assert "ARGOCD_LIFECYCLE_SECRET_THING" not in env  # a minimal environment, not the generator's
    assert env["PATH"].split(":")[0] == str(plugins)


def test_token_is_shared_until_expiry_then_the_plugin_runs_again(cluster: LoopbackCluster, plugins: Path) -> None:
    far = datetime.now(UTC) + timedelta(hours=1)
    plugin(plugins, "auth-plugin", answer(expires=far))
    results = probe_n(exec_secret(cluster, "auth-plugin"), settings(plugins), n=3)
    assert all(r.reachable for r in results) and len(seen(plugins)) == 1
    (plugins / "seen.json").unlink()
    soon = datetime.now(UTC) + timedelta(seconds=2)  # inside the 5 s skew: expired for every use
    plugin(plugins, "auth-plugin", answer(expires=soon))
    results = probe_n(exec_secret(cluster, "auth-plugin"), settings(plugins), n=3)
    assert all(r.reachable for r in results) and len(seen(plugins)) == 3


def test_a_401_drops_the_token_and_the_next_probe_runs_the_plugin(cluster: LoopbackCluster, plugins: Path) -> None:
    plugin(plugins, "auth-plugin", answer())  # no expiry: held until the server refuses it

    def rotate() -> None:
        cluster.sim.token = "rotated"

    results = probe_n(exec_secret(cluster, "auth-plugin"), settings(plugins), n=3, between=rotate)
    assert results[0].reachable
    assert not results[1].reachable and "HTTP 401" in results[1].error and error_kind(results[1]) == "auth"
    assert len(seen(plugins)) == 2  # probe 1 ran it; probe 2 used it and got 401; probe 3 ran it again


def test_concurrent_uses_run_the_plugin_once(plugins: Path) -> None:
    plugin(plugins, "auth-plugin", "time.sleep(0.3)\n" + answer())
    creds = ExecCredentials(ExecPlugin("auth-plugin", api_version=V1), ExecSettings(("auth-plugin",), (str(plugins),)))

    async def both() -> None:
        a, b = await asyncio.gather(creds.get(), creds.get())
        assert a is b and a.token == TOKEN

    asyncio.run(both())
    assert creds.runs == 1 and len(seen(plugins)) == 1


@pytest.mark.parametrize("cluster", [{"token": "", "client_certs": True}], indirect=True)
def test_client_certificate_from_the_plugin(cluster: LoopbackCluster, plugins: Path) -> None:
    cert, key = cluster.ca.issue("exec-user", server=False)
    plugin(plugins, "auth-plugin", answer(token="", clientCertificateData=cert.decode(), clientKeyData=key.decode()))
    [result] = probe_n(exec_secret(cluster, "auth-plugin"), settings(plugins))
    assert result.reachable, result.error


SECRET_OUT = "tok-in-output-ABC123"

FAILURES = {
    "exit": (f"sys.stderr.write('{SECRET_OUT}'); print('{SECRET_OUT}'); sys.exit(3)\n", "exited with status 3"),
    "garbage": (f"print('not json {SECRET_OUT}')\n", "not an ExecCredential (not JSON)"),
    "too-much": ("sys.stdout.write('x' * 200000)\n", "printed more than 64 KiB"),
    "hang": ("time.sleep(30)\n", "no answer within 1s"),
    "wrong-version": (answer(V1BETA1).replace(TOKEN, SECRET_OUT), "configured for client.authentication.k8s.io/v1"),
    "no-status": ("emit({'kind': 'ExecCredential', 'apiVersion': 'client.authentication.k8s.io/v1'})\n", "no status"),
    "empty": (answer(token=""), "holds no token and no client certificate"),
    "cert-only": (answer(token="", clientCertificateData="x"), "only one of the certificate and the key"),
    "bad-expiry": (answer(expirationTimestamp="tomorrow"), "not an RFC 3339 time"),
    "header-token": (answer(token="a\nHost: evil"), "the token is not a header value"),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_each_plugin_failure_is_one_clear_auth_error_without_its_output(
    cluster: LoopbackCluster, plugins: Path, case: str, caplog: pytest.LogCaptureFixture
) -> None:
    body, message = FAILURES[case]
    plugin(plugins, "auth-plugin", body)
    secret = exec_secret(cluster, "auth-plugin", installHint="install auth-plugin from the platform team")
    [result] = probe_n(secret, settings(plugins, timeout=1.0))
    assert not result.reachable and error_kind(result) == "auth" and result.reason == "auth"
    assert result.error.startswith("exec plugin auth-plugin: ") and message in result.error, result.error
    assert SECRET_OUT not in result.error and SECRET_OUT not in caplog.text and "Traceback" not in result.error
    assert cluster.sim.requests == 0  # no credential, no request
    if case in ("exit", "hang"):
        assert "install auth-plugin from the platform team" in result.error


def test_a_hanging_plugin_is_killed_with_what_it_started(plugins: Path, tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    plugin(
        plugins,
        "auth-plugin",
        f"import subprocess\np = subprocess.Popen(['sleep', '30'])\nopen({str(marker)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(30)\n",
    )
    creds = ExecCredentials(
        ExecPlugin("auth-plugin", api_version=V1), ExecSettings(("auth-plugin",), (str(plugins),), timeout=1.0)
    )
    with pytest.raises(Exception, match="no answer within 1s"):
        asyncio.run(creds.get())
    child = int(marker.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        asyncio.run(asyncio.sleep(0.05))
    else:
        pytest.fail("the plugin's child outlived the timeout")


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("sh", "exec plugin sh is not an allowed command (allowed: auth-plugin"),
        ("/bin/sh", "exec plugin /bin/sh is not an allowed command"),
        ("../auth-plugin", "allowed commands run from"),
        ("/tmp/auth-plugin", "allowed commands run from"),
    ],
)
def test_only_allowed_commands_run(cluster: LoopbackCluster, plugins: Path, command: str, message: str) -> None:
    plugin(plugins, "auth-plugin", answer())
    [result] = probe_n(exec_secret(cluster, command, args=["-c", "touch /tmp/pwned"]), settings(plugins))
    assert not result.reachable and result.reason == "auth" and message in result.error, result.error
    assert seen(plugins) == [] and cluster.sim.requests == 0


def test_an_allowed_command_by_its_full_path_runs(cluster: LoopbackCluster, plugins: Path) -> None:
    path = plugin(plugins, "auth-plugin", answer())
    [result] = probe_n(exec_secret(cluster, str(path)), settings(plugins))
    assert result.reachable, result.error


def test_an_allowed_command_missing_from_the_folders_names_the_install_hint(
    cluster: LoopbackCluster, plugins: Path
) -> None:
    secret = exec_secret(cluster, "auth-plugin", installHint="see docs/install/managed-clusters.md")
    [result] = probe_n(secret, settings(plugins))
    assert "executable not found in" in result.error and result.reason == "auth"


def test_nothing_runs_by_default_but_argocd_k8s_auth(cluster: LoopbackCluster, plugins: Path) -> None:
    plugin(plugins, "auth-plugin", answer())
    prober_settings = ProberSettings(exec=ExecSettings(plugin_dirs=(str(plugins),)))
    [result] = probe_n(exec_secret(cluster, "auth-plugin"), prober_settings)
    assert "(allowed: argocd-k8s-auth;" in result.error and seen(plugins) == []


AKID, AWS_SECRET = "AKIDLOOPBACKTEST", "loopback/test/secret/key"


@pytest.fixture
def eks(cluster: LoopbackCluster, monkeypatch: pytest.MonkeyPatch) -> LoopbackCluster:
    """The loopback cluster as EKS: it accepts only argocd-k8s-auth tokens for cluster prod-eks signed
    with the test's key; the generator's pod has static AWS credentials in its environment."""
    cluster.sim.accepts = lambda token: (
        not aws_sts.problem(token, cluster="prod-eks", access_key=AKID, secret_key=AWS_SECRET)
    )
    for name, value in {
        "AWS_ACCESS_KEY_ID": AKID,
        "AWS_SECRET_ACCESS_KEY": AWS_SECRET,
        "AWS_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",  # never the link-local metadata service
        "AWS_CONFIG_FILE": "/nonexistent",
        "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
    }.items():
        monkeypatch.setenv(name, value)
    return cluster


def aws_secret(cluster: LoopbackCluster, name: str) -> dict:
    cfg = {"awsAuthConfig": {"clusterName": name}, "tlsClientConfig": {"caData": b64(cluster.ca.pem)}}
    return cluster.secret(config=cfg)


def aws_settings(**kw: Any) -> ProberSettings:
    return ProberSettings(
        timeout=2.0, exec=ExecSettings(plugin_dirs=(str(require_tool("argocd-k8s-auth").parent),), **kw)
    )


def test_aws_auth_config_runs_argo_cds_own_argocd_k8s_auth(eks: LoopbackCluster) -> None:
    [result] = probe_n(aws_secret(eks, "prod-eks"), aws_settings())
    assert result.reachable and result.readyz_ok and not result.error, result.error


def test_a_token_for_another_cluster_or_key_is_refused(eks: LoopbackCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    [other] = probe_n(aws_secret(eks, "other-cluster"), aws_settings())
    assert not other.reachable and "HTTP 401" in other.error and other.reason == "auth"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "someone-elses")
    [wrong_key] = probe_n(aws_secret(eks, "prod-eks"), aws_settings())
    assert not wrong_key.reachable and "HTTP 401" in wrong_key.error


def test_aws_without_credentials_is_a_clear_auth_error(eks: LoopbackCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    # argocd-k8s-auth retries for a minute; the exec deadline ends it
    [result] = probe_n(aws_secret(eks, "prod-eks"), aws_settings(timeout=2.0))
    assert result.error == "exec plugin argocd-k8s-auth: no answer within 2s" and result.reason == "auth"
    assert eks.sim.requests == 0
