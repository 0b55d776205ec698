"""Session fixtures of the end-to-end tier: the whole loop on real upstream components, loopback only.

A missing binary or a component that does not come up FAILS every e2e test with the reason (never a skip).
Process logs are kept under test-artifacts/e2e/.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from tests.e2e.e2e_harness import paths
from tests.e2e.e2e_harness.platform import Platform, start_platform
from tests.e2e.e2e_harness.procs import HarnessError


@pytest.fixture(scope="session")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Platform]:
    if paths.ARTIFACTS.exists():
        shutil.rmtree(paths.ARTIFACTS)
    paths.ARTIFACTS.mkdir(parents=True)
    progress_log = (paths.ARTIFACTS / "harness.log").open("a")

    def progress(message: str) -> None:
        progress_log.write(message + "\n")
        progress_log.flush()

    try:
        started = start_platform(tmp_path_factory.mktemp("e2e"), paths.ARTIFACTS, progress)
    except HarnessError as exc:
        progress_log.close()
        pytest.fail(f"end-to-end platform did not start: {exc}", pytrace=False)
    try:
        yield started
    finally:
        started.stop()
        progress_log.close()
