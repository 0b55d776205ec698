"""Running the real fleet (inventory, prober, engine, writer) against loopback servers in a test."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from argocd_lifecycle.generators.fleet.lifecycle import LifecycleSettings
from argocd_lifecycle.generators.fleet.metrics import FleetMetrics
from argocd_lifecycle.generators.fleet.prober import ProberSettings
from argocd_lifecycle.generators.fleet.view import ClusterState
from argocd_lifecycle.generators.runner import Fleet, start_fleet
from argocd_lifecycle.generators.settings import ServeSettings

FAST = LifecycleSettings(ready_after=2, unreachable_after=2, certificate_warning=timedelta(days=14))


def settings(
    *,
    kubeconfig: Path | None = None,
    clusters_from: Path | None = None,
    interval: float = 0.15,
    lifecycle: LifecycleSettings = FAST,
    identity: str = "replica-a",
    receiver_url: str = "",
    receiver_secret: bytes = b"",
    receiver_external_secret: bytes = b"",
    leader_election: bool = True,
) -> ServeSettings:
    return ServeSettings(
        clusters_from=clusters_from,
        state_file=None,
        kubeconfig=str(kubeconfig) if kubeconfig else None,
        context=None,
        namespace="argocd",
        host="127.0.0.1",
        port=0,
        lifecycle=lifecycle,
        probing=ProberSettings(interval=interval, timeout=1.0, concurrency=16),
        leader_election=leader_election and clusters_from is None,
        identity=identity,
        receiver_url=receiver_url,
        receiver_secret=receiver_secret,
        receiver_external_secret=receiver_external_secret,
        plugin_configmap="",
        log_level="INFO",
    )


async def started(s: ServeSettings) -> tuple[Fleet, CollectorRegistry]:
    registry = CollectorRegistry()
    fleet = await start_fleet(s, FleetMetrics(registry))
    return fleet, registry


def _checked(check: Callable[[], Any], what: str, deadline: float) -> Any:
    value = check()
    if not value and time.monotonic() > deadline:
        raise AssertionError(f"timed out waiting for {what}")
    return value


async def eventually(check: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    """Poll ``check`` until it returns something truthy; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (value := _checked(check, what, deadline)):
        await asyncio.sleep(0.05)
    return value


async def eventually_read(check: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    """``eventually`` for a check that calls a server (an API read): it runs in a worker thread, less often.

    On the loop, a slow call would stall the fleet sharing it: a probe whose answer waits behind it times out.
    """
    deadline = time.monotonic() + timeout
    while not (value := await asyncio.to_thread(_checked, check, what, deadline)):
        await asyncio.sleep(0.2)
    return value


def until(check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """``eventually`` for code outside an event loop."""
    deadline = time.monotonic() + timeout
    while not (value := _checked(check, what, deadline)):
        time.sleep(0.1)
    return value


def by_name(fleet: Fleet) -> dict[str, ClusterState]:
    return {c.name: c for c in fleet.engine.clusters()}


def phase_of(fleet: Fleet, name: str) -> str:
    state = by_name(fleet).get(name)
    return state.phase.value if state else ""


def with_interval(s: ServeSettings, interval: float) -> ServeSettings:
    return replace(s, probing=replace(s.probing, interval=interval))
