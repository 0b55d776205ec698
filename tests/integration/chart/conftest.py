"""The real kube-apiserver is started once, and only for the tests that ask for it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness.procs import HarnessError, Supervisor
from tests.integration.chart.chartkit import render
from tests.integration.chart.realapi import RealApi, start


@pytest.fixture(scope="session")
def real_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealApi]:
    """etcd + kube-apiserver holding everything the chart renders with its default values."""
    folder = tmp_path_factory.mktemp("chart-apiserver")
    sup = Supervisor(folder / "logs")
    try:
        api = start(folder, sup)
        api.apply_all(render())
    except HarnessError as exc:
        sup.stop_all()
        pytest.fail(f"kube-apiserver/etcd did not start: {exc}", pytrace=False)
    except BaseException:
        sup.stop_all()
        raise
    try:
        yield api
    finally:
        sup.stop_all()
