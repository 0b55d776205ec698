"""A real kube-apiserver holding Argo CD's CRDs and the chart's default objects (its Role and admission
policy included), started once for the drift tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.harness.procs import HarnessError, Supervisor
from tests.integration.chart.chartkit import render
from tests.integration.chart.realapi import RealApi, start


@pytest.fixture(scope="module")
def chart_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealApi]:
    folder = tmp_path_factory.mktemp("drift-apiserver")
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
