from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from argocd_lifecycle.generators.service.app import build_app
from argocd_lifecycle.generators.service.settings import ServiceSettings

from .fleet_fixture import MemoryFleet, sample_fleet

TOKEN = "unit-test-token-4711"


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return path


@pytest.fixture
def fleet() -> MemoryFleet:
    return MemoryFleet(sample_fleet())


ClientFactory = Callable[..., TestClient]


@pytest.fixture
def make_client(fleet: MemoryFleet, token_file: Path) -> ClientFactory:
    def make(**options: object) -> TestClient:
        options.setdefault("token_file", token_file)
        settings = ServiceSettings.from_options(**options)  # type: ignore[arg-type]
        return TestClient(build_app(fleet, settings), headers={"Authorization": f"Bearer {TOKEN}"})

    return make


@pytest.fixture
def client(make_client: ClientFactory) -> TestClient:
    return make_client()
