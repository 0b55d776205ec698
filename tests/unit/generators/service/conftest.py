from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from argocd_lifecycle.generators.fleet.view import Baseline, HoldReporter
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
    def make(
        *, baseline: Baseline | None = None, reporter: HoldReporter | None = None, **options: object
    ) -> TestClient:
        options.setdefault("token_file", token_file)
        options.setdefault("drop_settle", 0.0)  # the settle window has tests of its own
        settings = ServiceSettings.from_options(**options)  # type: ignore[arg-type]
        app = build_app(fleet, settings, baseline=baseline, reporter=reporter)
        return TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"})

    return make


@pytest.fixture
def client(make_client: ClientFactory) -> TestClient:
    return make_client()
