from __future__ import annotations

import datetime as dt

import pytest

from argocd_lifecycle.notifications.catalog.build import Catalog, build
from tests.integration.notifications.catalog.engine import Evaluator, configmap_for_engine


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return build()


@pytest.fixture(scope="session")
def now() -> dt.datetime:
    """One clock for a session; fixture times sit minutes away from every threshold."""
    return dt.datetime.now(dt.UTC)


@pytest.fixture(scope="session")
def engine(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog) -> Evaluator:
    return Evaluator(tmp_path_factory.mktemp("notify-eval"), configmap_for_engine(catalog))
