"""The receiver as a real subprocess (`argocd-lifecycle receiver serve`), real loopback sinks, and a
real redis-server started here."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from argocd_lifecycle.signing import sign
from tests.integration.notifications.receiver import loopback

TOKEN = "integration-token"
ADMIN_TOKEN = "integration-admin-token"
LIFECYCLE_SECRET = b"integration-lifecycle-hmac"
EXTERNAL_SECRET = b"integration-external-hmac"
#: the secret each signed route takes
SECRETS = {"/v1/events/lifecycle": LIFECYCLE_SECRET, "/v1/events/external": EXTERNAL_SECRET}
ARGOCD_URL = "https://argocd.example"
CLI = Path(sys.executable).parent / "argocd-lifecycle"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(condition: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


@pytest.fixture
def sinks() -> Iterator[dict[str, loopback.Sink]]:
    started = {
        "slack": loopback.start("slack"),
        "dingtalk": loopback.start("dingtalk", "SEC-dingtalk-secret"),
        "teams": loopback.start("teams"),
        "webhook": loopback.start("webhook", "audit-hmac"),
    }
    yield started
    for sink in started.values():
        assert sink.server is not None
        sink.server.shutdown()
        sink.server.server_close()


def receiver_config(tmp_path: Path, sinks: dict[str, loopback.Sink], extra: str = "") -> Path:
    (tmp_path / "token").write_text(TOKEN)
    (tmp_path / "admin-token").write_text(ADMIN_TOKEN)
    (tmp_path / "lifecycle-hmac").write_bytes(LIFECYCLE_SECRET)
    (tmp_path / "external-hmac").write_bytes(EXTERNAL_SECRET)
    (tmp_path / "dingtalk").write_text(sinks["dingtalk"].secret)
    (tmp_path / "audit").write_text(sinks["webhook"].secret)
    (tmp_path / "slack-url").write_text(sinks["slack"].url)
    path = tmp_path / "receiver.yaml"
    path.write_text(
        f"""
inbound: {{tokenFile: token, lifecycleSecretFile: lifecycle-hmac, externalSecretFile: external-hmac}}
argocdUrl: {ARGOCD_URL}
admin: {{tokenFile: admin-token}}
dedupe: {{window: 30m}}
storm: {{groupWait: 3s, groupInterval: 1h}}
delivery: {{maxAttempts: 50, initialBackoff: 200ms, maxBackoff: 1s, timeout: 5s}}
receivers:
  - {{name: ops-slack, type: slack, urlFile: slack-url, rateLimit: {{messages: 100, per: 1s}}}}
  - {{name: ops-dingtalk, type: dingtalk, url: "{sinks["dingtalk"].url}", secretFile: dingtalk}}
  - {{name: ops-teams, type: teams, url: "{sinks["teams"].url}"}}
  - {{name: audit, type: webhook, url: "{sinks["webhook"].url}", secretFile: audit}}
routes:
  - {{match: {{severity: [critical]}}, receiver: ops-dingtalk, continue: true}}
  - {{match: {{severity: [critical]}}, receiver: ops-teams, continue: true}}
  - {{match: {{project: [audited]}}, receiver: audit}}
  - {{match: {{}}, receiver: ops-slack}}
{extra}
"""
    )
    return path


class ReceiverProcess:
    """One `argocd-lifecycle receiver serve` subprocess and a client for it."""

    def __init__(
        self,
        config: Path,
        state: str,
        log: Path,
        flags: tuple[str, ...] = (),
        wrap: Callable[[list[str]], list[str]] = list,
    ) -> None:
        self.config, self.state, self.log, self.flags, self.wrap = config, state, log, flags, wrap
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.http = httpx.Client(base_url=self.url, timeout=10)

    def start(self) -> ReceiverProcess:
        if not CLI.exists():
            pytest.fail(f"{CLI} is missing: run `make install`")
        argv = [str(CLI), "receiver", "serve", "--config", str(self.config), "--state", self.state]
        argv += ["--listen", f"127.0.0.1:{self.port}", *self.flags]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(self.wrap(argv), stdout=log, stderr=subprocess.STDOUT, cwd=self.config.parent)

        def healthy() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"receiver exited {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            try:
                return self.http.get("/healthz").status_code == 200
            except httpx.TransportError:
                return False

        wait_until(healthy, what="receiver /healthz")
        return self

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def argocd(self, body: dict[str, Any], token: str = TOKEN) -> httpx.Response:
        return self.http.post("/v1/events/argocd", json=body, headers={"Authorization": f"Bearer {token}"})

    def signed(self, path: str, body: dict[str, Any], *, secret: bytes | None = None, at: float | None = None):
        """``body`` and its headers, signed with ``path``'s own secret unless ``secret`` is given."""
        raw = json.dumps(body).encode()
        key = SECRETS[path] if secret is None else secret
        headers = {"Content-Type": "application/json", **sign(key, raw, time.time() if at is None else at)}
        return raw, headers

    def lifecycle(self, body: dict[str, Any]) -> httpx.Response:
        raw, headers = self.signed("/v1/events/lifecycle", body)
        return self.http.post("/v1/events/lifecycle", content=raw, headers=headers)

    def outbox(self) -> dict[str, Any]:
        response = self.http.get("/v1/outbox", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        assert response.status_code == 200, response.text
        return dict(response.json())

    def settled(self) -> dict[str, Any]:
        """Wait until nothing is pending; the outbox then."""
        return dict(wait_until(lambda: (o := self.outbox())["counts"]["pending"] == 0 and o, what="empty outbox"))


@pytest.fixture
def start_receiver(tmp_path: Path, sinks: dict[str, loopback.Sink]) -> Iterator[Callable[..., ReceiverProcess]]:
    started: list[ReceiverProcess] = []

    def start(
        state: str | None = None,
        extra: str = "",
        flags: tuple[str, ...] = (),
        wrap: Callable[[list[str]], list[str]] = list,
    ) -> ReceiverProcess:
        config = receiver_config(tmp_path, sinks, extra)
        state = state or f"sqlite:///{tmp_path}/state.db"
        process = ReceiverProcess(config, state, tmp_path / "receiver.log", flags, wrap)
        started.append(process)
        return process.start()

    yield start
    for process in started:
        process.stop()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is missing: install Debian's redis-server (tools/apt-packages.txt)")
    port, folder = free_port(), tmp_path_factory.mktemp("redis")
    argv = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    proc = subprocess.Popen([*argv, "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def up() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    wait_until(up, what="redis-server")
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(10)
