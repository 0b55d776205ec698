"""A real uvicorn server on 127.0.0.1 (with the HTTP layer's protocol and settings) serving build_app over
an in-memory fleet, in a thread."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
import uvicorn

from argocd_lifecycle.generators.fleet.applications import AppStatus
from argocd_lifecycle.generators.rollout.keeper import AppSetCache, RolloutKeeper
from argocd_lifecycle.generators.rollout.machine import RolloutEvent
from argocd_lifecycle.generators.service.app import build_app
from argocd_lifecycle.generators.service.settings import ServiceSettings
from argocd_lifecycle.http.server import ServerSettings, uvicorn_config
from tests.unit.generators.service.fleet_fixture import MemoryFleet, sample_fleet

TOKEN = "integration-token-0815"
#: the ApplicationSet whose rollout the live service plans (its Applications all run ROLLED_FROM)
ROLLOUT_APPSET = "guestbook-rollout"
ROLLED_FROM = "v1.0.0"


class _Quiet:
    """The rollout's sink: nothing is written, told or woken here."""

    def annotate(self, appset: str, annotations: Mapping[str, str | None]) -> None: ...

    def tell(self, appset: str, uid: str, event: RolloutEvent, revision: str) -> None: ...

    def wake(self, appset: str, after: float) -> None: ...


def _rollouts(fleet: MemoryFleet) -> RolloutKeeper:
    appsets = AppSetCache()
    appsets.listed([{"metadata": {"name": ROLLOUT_APPSET}}])

    def statuses(appset: str) -> dict[tuple[str, str], list[AppStatus]]:
        return {(c.server, c.name): [AppStatus(f"app-{c.name}", ROLLED_FROM, True, True)] for c in fleet.clusters()}

    return RolloutKeeper(appsets, statuses, lambda: True, _Quiet())


@dataclass
class LiveService:
    url: str
    fleet: MemoryFleet
    token_file: Path


@pytest.fixture
def live_service(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[LiveService]:
    """Service options may come from ``indirect`` parametrisation."""
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    fleet = MemoryFleet(sample_fleet())
    # no settle window: the tests hold and release at once (its wait is tested in the unit tier)
    options = {"drop_settle": 0.0, **getattr(request, "param", {})}
    app = build_app(fleet, ServiceSettings.from_options(token_file=token_file, **options), rollouts=_rollouts(fleet))
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # served the way `generator serve` serves it: our protocol, limits and uvicorn settings
    server = uvicorn.Server(
        uvicorn_config(app, ServerSettings((("127.0.0.1", port),), log_level="warning"), lifespan="off")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("the uvicorn server did not start")
        time.sleep(0.02)
    try:
        yield LiveService(f"http://127.0.0.1:{port}", fleet, token_file)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
