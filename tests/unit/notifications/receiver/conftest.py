from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from argocd_lifecycle.notifications.receiver import config as receiver_config

TOKEN = "t0ken-for-tests"
ADMIN_TOKEN = "admin-t0ken-for-tests"
LIFECYCLE_SECRET = b"lifecycle-secret-for-tests"
EXTERNAL_SECRET = b"external-secret-for-tests"


class Clock:
    """A settable clock; the code under test takes ``clock``/``now`` instead of reading time itself."""

    def __init__(self, now: float = 1_760_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


def write_config(tmp_path: Path, body: str) -> Path:
    (tmp_path / "token").write_text(TOKEN + "\n")
    (tmp_path / "admin-token").write_text(ADMIN_TOKEN + "\n")
    (tmp_path / "lifecycle-hmac").write_bytes(LIFECYCLE_SECRET)
    (tmp_path / "external-hmac").write_bytes(EXTERNAL_SECRET)
    (tmp_path / "hook-secret").write_text("hook-secret\n")
    path = tmp_path / "receiver.yaml"
    path.write_text(body)
    return path


BASIC = """
inbound: {tokenFile: token, lifecycleSecretFile: lifecycle-hmac, externalSecretFile: external-hmac}
argocdUrl: https://argocd.example
admin: {tokenFile: admin-token}
dedupe: {window: 30m}
flap: {threshold: 3, window: 10m}
storm: {groupWait: 10s, groupInterval: 5m}
delivery: {maxAttempts: 3, initialBackoff: 1s, maxBackoff: 10s}
receivers:
  - {name: ops-slack, type: slack, url: "http://127.0.0.1:9/slack"}
  - {name: ops-dingtalk, type: dingtalk, url: "http://127.0.0.1:9/robot/send?access_token=x", secretFile: hook-secret}
  - {name: audit, type: webhook, url: "http://127.0.0.1:9/audit", secretFile: hook-secret}
routes:
  - {match: {severity: [critical]}, receiver: ops-dingtalk, continue: true}
  - {match: {}, receiver: ops-slack}
"""


@pytest.fixture
def basic_config(tmp_path: Path) -> receiver_config.ReceiverConfig:
    return receiver_config.load(write_config(tmp_path, BASIC))


@pytest.fixture
def state_path(tmp_path: Path) -> Iterator[str]:
    yield f"sqlite:///{tmp_path}/state.db"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
