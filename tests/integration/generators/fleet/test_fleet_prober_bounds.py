"""A probe is bounded: a hostile cluster endpoint (real HTTPS on loopback) cannot exhaust the prober.

Node pages without end end in "nodes unknown" after a bounded read; a /version far larger than any
real one is refused at its cap; an endpoint that trickles a byte at a time becomes a timeout at the
probe's deadline and frees its concurrency slot, so a healthy cluster sharing the slots is still probed.
Memory is measured with tracemalloc (what the probe held at its peak), and the attack server stops
each answer at its own cap, so a probe without bounds fails these tests by a counter, not by taking
the machine's memory.
"""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from argocd_lifecycle.cluster_secrets import parse_secret
from argocd_lifecycle.generators.fleet.metrics import error_kind
from argocd_lifecycle.generators.fleet.probe_result import ProbeResult
from argocd_lifecycle.generators.fleet.prober import Prober, ProberSettings
from tests.integration.generators.fleet.hostile import MIB, HostileCluster
from tests.integration.generators.harness import by_name, eventually, phase_of, settings, started
from tests.integration.generators.loopback import LoopbackCluster

#: small bounds, so the attacks are quick: 8 pages of 50 nodes, 256 KiB a page, a 2 s probe
BOUNDED = ProberSettings(timeout=1.0, deadline=2.0, page_bytes=256 * 1024, max_nodes=200)


@pytest.fixture
def hostile(tmp_path: Path):
    cluster = HostileCluster(tmp_path / "pki", "hostile").start()
    yield cluster
    cluster.stop()


def probe_measured(cluster: HostileCluster, probing: ProberSettings = BOUNDED) -> tuple[ProbeResult, int, int]:
    """One probe; the most memory Python held during it, and what it still held after (bytes)."""

    async def once() -> ProbeResult:
        prober = Prober(probing)
        try:
            async with asyncio.timeout(60):  # the test's own guard: a probe without a deadline waits for ever
                result, _ = await prober.probe(parse_secret(cluster.secret()))
            return result
        finally:
            await prober.aclose()

    tracemalloc.start()
    try:
        result = asyncio.run(once())
        gc.collect()  # what is garbage is not kept
        kept, peak = tracemalloc.get_traced_memory()
        return result, peak, kept
    finally:
        tracemalloc.stop()


def test_node_pages_without_end_are_read_to_their_budget_then_the_nodes_are_unknown(hostile: HostileCluster) -> None:
    hostile.attacks.nodes = "endless"
    hostile.attacks.cap = 20 * MIB
    result, peak, _ = probe_measured(hostile)
    # the old prober read all 20 MB and kept every node of it
    assert hostile.attacks.sent < 5 * 256 * 1024
    assert peak < 4 * MIB, f"the probe held {peak / MIB:.1f} MiB"
    # answered, healthy, nodes unknown: a bound is not a health problem
    assert result.reachable and result.readyz_ok and result.error == ""
    assert not result.nodes_known and result.nodes == 0
    assert result.nodes_unknown == "/api/v1/nodes: more than 200 nodes"
    assert hostile.attacks.requests["/api/v1/nodes"] == 5  # 200 nodes are 4 pages of 50: the 5th is past it


def test_node_pages_without_nodes_stop_at_the_page_budget(hostile: HostileCluster) -> None:
    hostile.attacks.nodes = "empty"
    hostile.attacks.cap = 50 * MIB
    result, _, _ = probe_measured(hostile)
    assert result.reachable and not result.nodes_known and result.error == ""
    assert result.nodes_unknown == "/api/v1/nodes: more than 8 pages"  # twice what 200 nodes need
    assert hostile.attacks.requests["/api/v1/nodes"] == 8
    # 1,000 pages, each with its own 2 KB continue token: none of them stays behind in a URL cache (the
    # old prober kept them all, 16,384 at most); what is kept is urllib's own bounded cache of 128 URLs
    result, _, kept = probe_measured(hostile, replace(BOUNDED, max_nodes=25_000, deadline=60))
    assert result.nodes_unknown == "/api/v1/nodes: more than 1000 pages"
    assert kept < 2 * MIB, f"{kept / MIB:.1f} MiB kept after the probe"


def test_a_node_page_over_its_byte_cap_leaves_the_nodes_unknown(hostile: HostileCluster) -> None:
    result, _, _ = probe_measured(hostile, replace(BOUNDED, page_bytes=64 * 1024))  # 50 nodes are ~7 KiB
    assert result.nodes_known  # under the cap: read
    hostile.attacks.sent = 0
    result, _, _ = probe_measured(hostile, replace(BOUNDED, page_bytes=4 * 1024))
    assert result.reachable and result.error == "" and not result.nodes_known
    assert result.nodes_unknown == "/api/v1/nodes: the answer is larger than 4 KiB"


@pytest.mark.parametrize("mode", ["huge", "declared"])
def test_a_huge_version_is_refused_at_its_cap(hostile: HostileCluster, mode: str) -> None:
    """Streamed without end, or declared up front as 400 MB: cut at 64 KiB, a clear probe error."""
    hostile.attacks.version = mode
    hostile.attacks.cap = 50 * MIB
    result, peak, _ = probe_measured(hostile)
    assert peak < 4 * MIB, f"the probe held {peak / MIB:.1f} MiB"  # the old prober held all 50 MiB
    assert not result.reachable and result.error == "/version: the answer is larger than 64 KiB"
    assert error_kind(result) == "error"


def test_json_nested_deeper_than_the_parser_goes_is_a_probe_error(hostile: HostileCluster) -> None:
    hostile.attacks.version = "nested"  # 60 KiB of "[": the old prober raised RecursionError out of the probe
    result, _, _ = probe_measured(hostile)
    assert not result.reachable and result.error == "/version: the answer is not JSON"


@pytest.mark.parametrize(("path", "where"), [("version", "/version"), ("nodes", "/api/v1/nodes")])
def test_a_trickling_answer_becomes_a_timeout_at_the_deadline(hostile: HostileCluster, path: str, where: str) -> None:
    """A byte every 0.2 s never trips the 1 s read timeout; the probe's deadline ends it."""
    setattr(hostile.attacks, path, "trickle")
    result, _, _ = probe_measured(hostile)
    assert not result.reachable
    assert result.error == f"{where}: timeout (the probe took over its 2s deadline)"
    assert error_kind(result) == "timeout"
    setattr(hostile.attacks, path, "")  # it stops: the next probe is whole again
    result, _, _ = probe_measured(hostile)
    assert result.reachable and result.nodes_known and not result.error


def test_the_prober_recovers_its_connection_after_a_deadline(hostile: HostileCluster) -> None:
    """One Prober (one kept client) through a trickle and back: the cut connection is not reused."""
    hostile.attacks.version = "trickle"

    async def story() -> tuple[ProbeResult, ProbeResult]:
        prober = Prober(BOUNDED)
        secret = parse_secret(hostile.secret())
        try:
            async with asyncio.timeout(60):
                first, _ = await prober.probe(secret)
                hostile.attacks.version = ""
                second, _ = await prober.probe(secret)
            return first, second
        finally:
            await prober.aclose()

    first, second = asyncio.run(story())
    assert error_kind(first) == "timeout"
    assert second.reachable and second.git_version == "v1.29.3" and second.nodes == 50


def test_trickling_clusters_become_unreachable_and_free_the_slots_for_a_healthy_one(tmp_path: Path) -> None:
    """Two slots, two Ready clusters that start to trickle: they turn Unreachable, a healthy one is still probed.

    Before the deadline, the two trickling probes held both slots for ever: the healthy cluster stayed
    Pending, never probed, and the trickling ones never became Unreachable.
    """
    folder = tmp_path / "clusters"
    folder.mkdir()
    slow = [HostileCluster(tmp_path / "pki", f"slow{i}").start() for i in range(2)]
    healthy = LoopbackCluster(tmp_path / "pki", "healthy").start()
    for cluster in slow:
        (folder / f"{cluster.name}.yaml").write_text(yaml.safe_dump(cluster.secret()))

    async def story() -> None:
        s = settings(clusters_from=folder, interval=0.2)
        s = replace(s, probing=replace(s.probing, concurrency=2, timeout=1.0, deadline=1.5))
        fleet, _ = await started(s)
        try:
            await eventually(lambda: phase_of(fleet, "slow0") == phase_of(fleet, "slow1") == "Ready", "both Ready")
            for cluster in slow:
                cluster.attacks.version = "trickle"
            # the healthy cluster arrives as both slots fill with trickles
            (folder / "healthy.yaml").write_text(yaml.safe_dump(healthy.secret()))
            await eventually(
                lambda: phase_of(fleet, "slow0") == phase_of(fleet, "slow1") == "Unreachable", "both Unreachable"
            )
            await eventually(lambda: phase_of(fleet, "healthy") == "Ready", "the healthy cluster Ready")
            assert "deadline" in by_name(fleet)["slow0"].message
            # the trickling ones are still probed (and still time out) while the healthy one is served
            seen = [c.attacks.requests["/version"] for c in slow]
            before = healthy.sim.requests
            await eventually(lambda: healthy.sim.requests >= before + 6, "two more healthy probes")
            await eventually(
                lambda: all(c.attacks.requests["/version"] > n for c, n in zip(slow, seen, strict=True)),
                "the trickling clusters probed again",
            )
        finally:
            await fleet.aclose()
            for cluster in slow:
                cluster.stop()
            healthy.stop()

    asyncio.run(story())
