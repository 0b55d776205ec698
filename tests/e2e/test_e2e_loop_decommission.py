"""Scenario 5 of the end-to-end tier: decommissioning keeps the objects; removing the Secret removes the Application.

Runs after test_e2e_loop.py (file order) on the same session-wide loop: the cluster is Ready and synced.
"""

from __future__ import annotations

import time

import pytest

from tests.harness.loop import (
    CLUSTER_SECRET,
    KEPT,
    REWRITTEN,
    Loop,
    annotations,
    cluster_phase_of,
    record,
    synced,
)
from tests.harness.procs import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def test_5_decommissioned_cluster_keeps_its_objects_when_the_secret_goes(loop: Loop, timings: dict[str, float]) -> None:
    started = time.monotonic()
    loop.platform.mgmt.merge_patch(
        "v1", "Secret", CLUSTER_SECRET, {"metadata": {"annotations": {"argocd-lifecycle.io/decommission": "true"}}},
        namespace="argocd",
    )  # fmt: skip
    loop.wait_phase("Decommissioning", timeout=60)
    loop.wait_app(lambda a: cluster_phase_of(a) == "Decommissioning", timeout=60, what="to carry Decommissioning")
    record(timings, "decommission_to_app_s", time.monotonic() - started)

    # automated sync is off while decommissioning: the operator's last sync applies the new render
    loop.platform.mgmt.merge_patch(
        "argoproj.io/v1alpha1", "Application", loop.app_name,
        {"operation": {"initiatedBy": {"username": "e2e"}, "sync": {"revision": "main"}}}, namespace="argocd",
    )  # fmt: skip
    loop.wait_app(
        lambda a: synced(a) and (a["status"]["operationState"].get("operation", {}).get("initiatedBy") or {})
        .get("username") == "e2e",
        timeout=120, what="to finish the manual sync",
    )  # fmt: skip
    for api_version, kind, name in [*REWRITTEN, *KEPT]:
        obj = loop.live(api_version, kind, name)
        assert obj is not None
        options = annotations(obj).get("argocd.argoproj.io/sync-options", "")
        assert {"Prune=false", "Delete=false"} <= set(options.split(",")), f"{kind}/{name}: {options!r}"

    started = time.monotonic()
    loop.platform.mgmt.delete("v1", "Secret", CLUSTER_SECRET, "argocd")
    wait_until(lambda: loop.application() is None, timeout=120, what=f"Application {loop.app_name} to go")
    record(timings, "secret_delete_to_app_gone_s", time.monotonic() - started)
    for api_version, kind, name in [*REWRITTEN, *KEPT]:
        assert loop.live(api_version, kind, name) is not None, f"{kind}/{name} was deleted downstream"
