"""generator serve's start-up read of argocd-cmd-params-cm: what its watches miss, told once on stderr;
nothing read when every namespace is watched; an unreadable ConfigMap stops the start."""

from __future__ import annotations

import asyncio
import logging

import pytest

from argocd_lifecycle.generators import runner
from argocd_lifecycle.generators.fleet.argocd_params import ArgoNamespaces, ArgoParamsError
from argocd_lifecycle.generators.fleet.namespaces import Namespaces
from argocd_lifecycle.kube.client import KubeError
from tests.unit.generators.fleet.test_fleet_argocd_params import FakeKube

DATA = {"data": {"applicationsetcontroller.namespaces": "team-a, team-*", "application.namespaces": "team-a,team-b"}}


def _unwatched(kube: FakeKube, flag: list[str]) -> ArgoNamespaces:
    return asyncio.run(runner._unwatched(kube, Namespaces.parse("argocd", flag)))  # type: ignore[arg-type]


def test_what_the_watch_misses_is_logged_once_per_kind(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=runner.log.name)
    kube = FakeKube(DATA)
    assert _unwatched(kube, ["team-a"]) == ArgoNamespaces(("team-*",), ("team-b",))
    assert len(kube.asked) == 1
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert lines[0].startswith(
        "applicationsetcontroller.namespaces in argocd-cmd-params-cm names namespaces this generator does not "
        "watch ('team-*'): an ApplicationSet is placed only by its input parameter applicationSetNamespace"
    )
    assert lines[1].startswith(
        "application.namespaces in argocd-cmd-params-cm names namespaces this generator does not watch "
        "('team-b'): the upgrade gate cannot see their Applications and publishes no cluster clear"
    )
    assert all("generator.applicationNamespaces" in line for line in lines)


def test_a_covered_configuration_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=runner.log.name)
    covered = {"data": {"applicationsetcontroller.namespaces": "argocd, team-a", "application.namespaces": "team-a"}}
    assert _unwatched(FakeKube(covered), ["team-a"]) == ArgoNamespaces()
    assert _unwatched(FakeKube(KubeError("HTTP 404 Not Found", status=404)), ["team-a"]) == ArgoNamespaces()
    assert caplog.records == []


def test_every_namespace_watched_reads_nothing() -> None:
    kube = FakeKube(KubeError("read ConfigMap argocd/argocd-cmd-params-cm: HTTP 403 Forbidden", status=403))
    assert _unwatched(kube, ["*"]) == ArgoNamespaces()
    assert kube.asked == []


def test_a_forbidden_read_stops_the_start() -> None:
    kube = FakeKube(KubeError("read ConfigMap argocd/argocd-cmd-params-cm: HTTP 403 Forbidden", status=403))
    with pytest.raises(ArgoParamsError, match="HTTP 403 Forbidden"):
        _unwatched(kube, ["team-a"])
