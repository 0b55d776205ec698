from __future__ import annotations

import datetime as dt

import pytest

from argocd_lifecycle.notifications.catalog.build import Catalog, build
from tests.argocd_versions import ArgocdRelease
from tests.integration.notifications.catalog.engine import Evaluator, configmap_for_engine


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return build()


@pytest.fixture(scope="session")
def now() -> dt.datetime:
    """One clock for a session; fixture times sit minutes away from every threshold."""
    return dt.datetime.now(dt.UTC)


@pytest.fixture(scope="session")
def engine(tmp_path_factory: pytest.TempPathFactory, catalog: Catalog, argocd_release: ArgocdRelease) -> Evaluator:
    """The catalog in the notifications engine of each Argo CD release: every test using it runs per release."""
    workdir = tmp_path_factory.mktemp(f"notify-eval-{argocd_release.minor}")
    return Evaluator(workdir, configmap_for_engine(catalog), release=argocd_release)
