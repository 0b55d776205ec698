"""Session fixtures of the end-to-end tier: the whole loop on real upstream components, loopback only.

A missing binary or a component that does not come up FAILS every e2e test with the reason (never a skip).
Process logs are kept under test-artifacts/e2e/.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest

from tests.harness import paths
from tests.harness.fleet import Rig, start_rig
from tests.harness.loop import Loop, start_loop
from tests.harness.platform import Platform, start_platform
from tests.harness.procs import HarnessError
from tests.harness.sink import Sink

T = TypeVar("T")


def _started(what: str, start: Callable[[], T], cleanup: Callable[[], None]) -> T:
    """``start()``, or clean up and FAIL (never skip) naming what did not come up and why."""
    try:
        return start()
    except HarnessError as exc:
        cleanup()
        pytest.fail(f"{what} did not start: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Platform]:
    if paths.ARTIFACTS.exists():
        shutil.rmtree(paths.ARTIFACTS)
    paths.ARTIFACTS.mkdir(parents=True)
    progress_log = (paths.ARTIFACTS / "harness.log").open("a")

    def progress(message: str) -> None:
        progress_log.write(message + "\n")
        progress_log.flush()

    scratch = tmp_path_factory.mktemp("e2e")
    started = _started(
        "end-to-end platform", lambda: start_platform(scratch, paths.ARTIFACTS, progress), progress_log.close
    )
    try:
        yield started
    finally:
        started.stop()
        progress_log.close()


@pytest.fixture(scope="session")
def loop(platform: Platform) -> Iterator[Loop]:
    """Our half on top: receiver (delivering to a loopback sink), catalog, generator, the ApplicationSet."""
    sink = Sink()
    started = _started("argocd-lifecycle services", lambda: start_loop(platform, sink), sink.close)
    try:
        yield started
    finally:
        sink.close()


@pytest.fixture(scope="session")
def timings(platform: Platform) -> Iterator[dict[str, float]]:
    """Measured delays of the scenarios, kept as test-artifacts/e2e/timings.json (never asserted on)."""
    measured: dict[str, float] = {k: round(v, 1) for k, v in platform.timings.items()}
    try:
        yield measured
    finally:
        (paths.ARTIFACTS / "timings.json").write_text(json.dumps(measured, indent=2) + "\n")


#: clusters of the fleet rig the mass-drop guard scenarios and the short soak share
RIG_CLUSTERS = 8


@pytest.fixture(scope="session")
def rig(platform: Platform) -> Iterator[Rig]:
    """Loopback clusters, two generator replicas behind a balancer, a receiver, the ApplicationSet ``soak``
    (it stops the one-cluster loop's generator: the scenarios using it run first, by file order)."""
    sink = Sink()
    started = _started("the fleet rig", lambda: start_rig(platform, sink, RIG_CLUSTERS), sink.close)
    try:
        yield started
    finally:
        started.close()
        sink.close()
