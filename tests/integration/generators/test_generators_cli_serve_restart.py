"""``generator serve --clusters-from`` restarted: admitted clusters stay admitted (no 200 with fewer clusters
from the first answer on) and the mass-drop guard remembers, both from the state file beside the folder."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.integration.generators.harness import until
from tests.integration.generators.loopback import LoopbackCluster, free_port

ARGV = [sys.executable, "-m", "argocd_lifecycle.app", "generator", "serve", "--insecure-no-auth", "--probe-interval",
        "200ms", "--ready-after", "2", "--unreachable-after", "2", "--drop-settle", "1"]  # fmt: skip
BODY = {"applicationSetName": "guestbook", "input": {"parameters": {}}}
NAMES = ("one", "two", "three")


class Serve:
    def __init__(self, folder: Path, log: Path) -> None:
        self.folder, self.log, self.port = folder, log, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with self.log.open("ab") as out:
            argv = [*ARGV, "--clusters-from", str(self.folder), "--listen", f"127.0.0.1:{self.port}"]
            self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(15)
            self.proc = None

    def ask(self) -> httpx.Response | None:
        try:
            return httpx.post(f"{self.url}/api/v1/getparams.execute", json=BODY, timeout=5)
        except httpx.TransportError:
            return None  # not listening yet

    def phases(self) -> dict[str, str]:
        rows = httpx.get(f"{self.url}/api/v1/clusters", timeout=5).json()["clusters"]
        return {row["name"]: row["phase"] for row in rows}


def _names(response: httpx.Response) -> list[str]:
    return sorted(p["name"] for p in response.json()["output"]["parameters"])


def _answers_until(serve: Serve, *, held: bool) -> str:
    """Every answer from now on, until the hold (``held``) or a 200: a 503 while the process does not
    know yet, and never a 200 with fewer than all the clusters; returns the hold's message or ''."""
    deadline = time.monotonic() + 30
    while True:
        assert serve.proc is not None and serve.proc.poll() is None, serve.log.read_text()[-2000:]
        response = serve.ask()
        if response is not None:
            if response.status_code == 200:
                assert _names(response) == sorted(NAMES), response.text[:500]
                if not held:
                    return ""
            else:
                assert response.status_code == 503, response.text
                message = str(response.json()["message"])
                if held and "mass-drop guard: holding" in message:
                    return message
        assert time.monotonic() < deadline, "no settled answer"
        time.sleep(0.05)


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[tuple[Serve, dict[str, LoopbackCluster]]]:
    folder = tmp_path / "clusters"
    folder.mkdir()
    clusters = {n: LoopbackCluster(tmp_path / "pki", n).start() for n in NAMES}
    for name, cluster in clusters.items():
        (folder / f"{name}.yaml").write_text(yaml.safe_dump(cluster.secret()))
    serve = Serve(folder, tmp_path / "serve.log")
    try:
        yield serve, clusters
    finally:
        serve.stop()
        for cluster in clusters.values():
            cluster.stop()


def test_a_restart_keeps_phases_and_the_guards_memory(fleet: tuple[Serve, dict[str, LoopbackCluster]]) -> None:
    serve, clusters = fleet
    serve.start()
    until(lambda: serve.ask() is not None and serve.phases() == dict.fromkeys(NAMES, "Ready"), "every cluster Ready")
    assert _answers_until(serve, held=False) == ""
    state = serve.folder.parent / ".clusters.lifecycle-state.json"

    def remembered() -> list[str]:
        saved: dict[str, Any] = json.loads(state.read_text())
        return sorted(t["name"] for t in saved["answers"].get("guestbook", []))

    until(lambda: remembered() == sorted(NAMES), "the answer in the state file (written within 0.2 s)")

    clusters["three"].stop()  # a probe can no longer pass the gate: only the state file can say Ready
    serve.stop()
    serve.start()
    assert _answers_until(serve, held=False) == ""  # the old memory: Pending, 200 [] for a while
    assert serve.phases()["one"] == "Ready"

    for name in ("one", "two"):  # deleted without a decommission: held, and still held after a restart
        (serve.folder / f"{name}.yaml").unlink()
    assert "would drop 2 of the 3 clusters" in _answers_until(serve, held=True)
    serve.stop()
    serve.start()
    assert "would drop 2 of the 3 clusters" in _answers_until(serve, held=True)

    for name in ("one", "two"):
        (serve.folder / f"{name}.yaml").write_text(yaml.safe_dump(clusters[name].secret()))
    assert _answers_until(serve, held=False) == ""  # back: the same clusters, admitted at once
