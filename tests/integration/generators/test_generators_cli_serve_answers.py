"""The whole path with the real inventory: `argocd-lifecycle generator serve` as a process (cluster
Secrets from a folder, flags wired to the service settings) answering Argo CD's plugin generator
(appset-eval)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.conftest import require_tool

CLI = Path(sys.executable).parent / "argocd-lifecycle"
TOKEN = "serve-token-42"


def _secret(name: str, env: str, **annotations: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {
            "name": f"cluster-{name}",
            "namespace": "argocd",
            "labels": {"argocd.argoproj.io/secret-type": "cluster", "env": env},
            "annotations": annotations,
        },
        # port 1 on loopback refuses connections: the clusters stay Pending, which is all this needs
        "stringData": {"name": name, "server": f"https://127.0.0.1:1/{name}", "config": "{}"},
    }


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    clusters = tmp_path / "clusters"
    clusters.mkdir()
    for name in ("alpha", "beta", "gamma"):
        (clusters / f"{name}.yaml").write_text(yaml.safe_dump(_secret(name, "prod")))
    (tmp_path / "token").write_text(TOKEN)
    (tmp_path / "policy.yaml").write_text("Pending: {syncEnabled: true}\n")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [
        str(CLI), "generator", "serve", "--clusters-from", str(clusters), "--listen", f"127.0.0.1:{port}",
        "--token-file", str(tmp_path / "token"), "--max-drop-percent", "40",
        "--policy-file", str(tmp_path / "policy.yaml"), "--no-leader-election", "--probe-interval", "60s",
        "--drop-settle", "1",
    ]  # fmt: skip
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"generator serve did not come up:\n{(tmp_path / 'serve.log').read_text()}")
            try:
                if httpx.get(url + "/healthz", timeout=2).json()["synced"]:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        yield url, clusters
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _appset(tmp_path: Path) -> Path:
    appset = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "ApplicationSet",
        "metadata": {"name": "fleet", "namespace": "argocd"},
        "spec": {
            "goTemplate": True,
            "goTemplateOptions": ["missingkey=error"],
            "generators": [
                {
                    "plugin": {
                        "configMapRef": {"name": "gen"},
                        "input": {
                            "parameters": {"readyOnly": False, "labelSelector": {"matchLabels": {"env": "prod"}}}
                        },
                    }
                }
            ],
            "template": {
                "metadata": {"name": "app-{{ .nameNormalized }}", "annotations": {"phase": "{{ .lifecycle.phase }}"}},
                "spec": {
                    "project": "default",
                    "source": {"repoURL": "https://git.example.com/a.git", "path": "a", "targetRevision": "main"},
                    "destination": {"server": "{{ .server }}", "namespace": "a"},
                },
            },
            "templatePatch": "spec:\n  syncPolicy:\n    automated:\n      enabled: {{ .lifecycle.syncEnabled }}\n",
        },
    }
    path = tmp_path / "appset.yaml"
    path.write_text(yaml.safe_dump(appset))
    return path


def _objects(tmp_path: Path, url: str) -> Path:
    docs = [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "gen"},
            "data": {"baseUrl": url, "token": "$gen:token"},
        },
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "gen"}, "stringData": {"token": TOKEN}},
    ]
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return path


def _clusters(url: str) -> list[dict[str, Any]]:
    clusters: list[dict[str, Any]] = httpx.get(url + "/api/v1/clusters").json()["clusters"]
    return clusters


def _eval(appset: Path, objects: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(require_tool("appset-eval")), "-appset", str(appset), "-objects", str(objects)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def _wait(check: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _until_held(appset: Path, objects: Path) -> subprocess.CompletedProcess[str]:
    """Ask until the answer is held (the file inventory re-reads the files, then the loss settles)."""
    deadline = time.monotonic() + 30
    while True:
        refused = _eval(appset, objects)
        if "mass-drop guard: holding ApplicationSet 'fleet'" in refused.stderr:
            assert refused.returncode == 1 and refused.stdout == ""
            assert "API error with status code 503: mass-drop guard: holding ApplicationSet 'fleet'" in refused.stderr
            return refused
        assert time.monotonic() < deadline, f"not held: {refused.stderr[-500:]}"
        time.sleep(0.2)


def test_generator_serve_answers_argo_cd_and_guards_mass_drops(serve: tuple[str, Path], tmp_path: Path) -> None:
    url, clusters = serve
    appset, objects = _appset(tmp_path), _objects(tmp_path, url)
    first = _eval(appset, objects)
    assert first.returncode == 0, first.stderr
    apps = {a["metadata"]["name"]: a for a in json.loads(first.stdout)["applications"]}
    assert sorted(apps) == ["app-alpha", "app-beta", "app-gamma"]
    assert apps["app-beta"]["metadata"]["annotations"]["phase"] == "Pending"
    # --policy-file reached the service: Pending may sync here
    assert apps["app-beta"]["spec"]["syncPolicy"]["automated"].get("enabled", True) is True

    # a bad relabelling: 2 of the 3 clusters of the last answer stop matching the selector: held
    for name in ("beta", "gamma"):
        (clusters / f"{name}.yaml").write_text(yaml.safe_dump(_secret(name, "staging")))
    refused = _until_held(appset, objects)
    assert "(67% > --max-drop-percent 40): beta, gamma" in refused.stderr

    # deleting the Secrets without a decommission is no way out: still held
    (clusters / "beta.yaml").unlink()
    (clusters / "gamma.yaml").unlink()
    _wait(lambda: len(_clusters(url)) == 1, "the inventory to see the Secret files go")
    assert "would drop 2 of the 3 clusters" in _until_held(appset, objects).stderr

    # the procedure: decommission, wait for the phase, delete: the Applications go
    for name in ("beta", "gamma"):
        annotated = _secret(name, "prod", **{"argocd-lifecycle.io/decommission": "true"})
        (clusters / f"{name}.yaml").write_text(yaml.safe_dump(annotated))
    _wait(lambda: {c["phase"] for c in _clusters(url) if c["name"] != "alpha"} == {"Decommissioning"}, "phases")
    assert _eval(appset, objects).returncode == 0  # Decommissioning clusters keep their Applications
    (clusters / "beta.yaml").unlink()
    (clusters / "gamma.yaml").unlink()
    _wait(lambda: len(_clusters(url)) == 1, "the inventory to see the Secret files go")
    accepted = _eval(appset, objects)
    assert accepted.returncode == 0, accepted.stderr
    assert [a["metadata"]["name"] for a in json.loads(accepted.stdout)["applications"]] == ["app-alpha"]

    wrong = httpx.post(
        url + "/api/v1/getparams.execute", json={"applicationSetName": "x"}, headers={"Authorization": "Bearer no"}
    )
    assert wrong.status_code == 403
