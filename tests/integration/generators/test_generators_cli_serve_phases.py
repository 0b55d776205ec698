"""``argocd-lifecycle generator serve --clusters-from DIR`` as a process: phases of live and dead clusters."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import yaml
from click.testing import CliRunner

from argocd_lifecycle.app.cli import cli, main
from tests.integration.generators.harness import until
from tests.integration.generators.loopback import LoopbackCluster, cluster_secret, free_port

ARGV = [sys.executable, "-m", "argocd_lifecycle.app", "generator", "serve"]


def _write(folder: Path, name: str, obj: dict) -> None:
    (folder / f"{name}.yaml").write_text(yaml.safe_dump(obj))


def _rows(port: int) -> dict[str, dict]:
    try:
        doc = httpx.get(f"http://127.0.0.1:{port}/api/v1/clusters", timeout=2).json()
    except (httpx.HTTPError, ValueError):
        return {}
    return {row["name"]: row for row in doc.get("clusters", [])}


def test_serve_clusters_from_folder_shows_live_and_dead_clusters(tmp_path: Path) -> None:
    secrets = tmp_path / "clusters"
    secrets.mkdir()
    live = LoopbackCluster(tmp_path / "pki", "live").start()
    late = LoopbackCluster(tmp_path / "pki", "late").start()
    dead_port = free_port()  # nothing listens here
    _write(secrets, "live", live.secret())
    _write(secrets, "dead", cluster_secret("dead", f"https://127.0.0.1:{dead_port}", "t", live.ca.pem))
    (secrets / "broken.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata: {name: x\n")
    port = free_port()
    proc = subprocess.Popen(
        [
            *ARGV,
            "--clusters-from",
            str(secrets),
            "--listen",
            f"127.0.0.1:{port}",
            "--insecure-no-auth",
            "--probe-interval",
            "200ms",
            "--ready-after",
            "2",
            "--unreachable-after",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        rows = until(lambda: (r := _rows(port)) and r.get("live", {}).get("phase") == "Ready" and r, "live Ready")
        assert rows["live"]["kubernetesVersion"] == "1.29.3" and rows["live"]["nodesReady"] == 3
        assert rows["live"]["certificateExpiresAt"]
        dead = until(
            lambda: "refused" in _rows(port).get("dead", {}).get("message", "") and _rows(port)["dead"], "dead"
        )
        assert dead["phase"] == "Pending"  # never passed the gate: stays Pending, with the reason

        _write(secrets, "late", late.secret())  # a new file is picked up without a restart
        until(lambda: _rows(port).get("late", {}).get("phase") == "Ready", "late Ready")

        live.stop()
        until(lambda: _rows(port).get("live", {}).get("phase") == "Unreachable", "live Unreachable")
        (secrets / "late.yaml").unlink()
        until(lambda: "late" not in _rows(port), "late removed")
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        live.stop()
        late.stop()
    assert proc.returncode == 0, err
    assert out == ""  # results only on the HTTP API; logs on stderr
    assert "broken.yaml" in err and "ClusterUnreachable" in err
    assert live.sim.token not in err and late.sim.token not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--probe-interval", "soon"], "is not a duration"),
        (["--listen", "nowhere"], "expected HOST:PORT"),
        (["--min-nodes-ready", "120"], "between 0 and 100"),
        (["--receiver-url", "http://127.0.0.1:9/v1/events/lifecycle"], "--receiver-secret-file"),
    ],
)
def test_serve_rejects_bad_flags_with_one_message(tmp_path: Path, capsys, args: list[str], message: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["generator", "serve", "--clusters-from", str(tmp_path), "--insecure-no-auth", *args])
    assert exc.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err and captured.out == ""


def test_serve_help_lists_the_flags() -> None:
    result = CliRunner().invoke(cli, ["generator", "serve", "--help"])
    assert result.exit_code == 0
    out = result.stdout
    for flag in (
        "--clusters-from",
        "--kubeconfig",
        "--namespace",
        "--listen",
        "--probe-interval",
        "--ready-after",
        "--unreachable-after",
        "--token-file",
    ):
        assert flag in out


def test_serve_with_kubeconfig_writes_phases_and_releases_the_lease(tmp_path: Path) -> None:
    from argocd_lifecycle.model import Annotation
    from tests.integration.generators.fake_kube_api import FakeKubeAPI

    api = FakeKubeAPI(tmp_path).start()
    edge = LoopbackCluster(tmp_path / "pki", "edge").start()
    api.put_secret(edge.secret())
    port = free_port()
    proc = subprocess.Popen(
        [
            *ARGV,
            "--kubeconfig",
            str(api.kubeconfig),
            "--namespace",
            "argocd",
            "--listen",
            f"127.0.0.1:{port}",
            "--insecure-no-auth",
            "--probe-interval",
            "200ms",
            "--ready-after",
            "2",
            "--identity",
            "serve-test",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        until(lambda: _rows(port).get("edge", {}).get("phase") == "Ready", "edge Ready")
        until(
            lambda: api.secret("cluster-edge")["metadata"].get("annotations", {}).get(Annotation.PHASE) == "Ready",
            "the phase annotation",
        )
        assert api.store["leases"]["argocd-lifecycle-generator"]["spec"]["holderIdentity"] == "serve-test"
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        edge.stop()
        api.stop()
    assert proc.returncode == 0, err
    assert api.store["leases"]["argocd-lifecycle-generator"]["spec"]["holderIdentity"] == ""  # given up on exit


def test_serve_without_any_kubernetes_configuration_says_so(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level  # serve configures logging: give pytest's back
    try:
        with pytest.raises(SystemExit) as exc:
            main(["generator", "serve", "--insecure-no-auth", "--listen", f"127.0.0.1:{free_port()}"])
    finally:
        root.handlers[:], root.level = handlers, level
    assert exc.value.code == 1
    err = capsys.readouterr().err
    assert "error: no kubeconfig given, not in a cluster" in err and "Traceback" not in err
