"""Tenants on the real platform: Argo CD's ApplicationSet and application controllers started with the
namespaces team-a and team-b, each holding an ApplicationSet named ``web`` over the same clusters.

The generator cannot tell the two apart from Argo CD's request (it names ``web`` only), so both are
refused until their input names their namespace; then each is answered and guarded against its own
Applications: a mass drop in team-a is held (its Applications kept, the Event on team-a/web, one
receiver message routed by its namespace to team-a's destination alone) while team-b/web is
answered. A tenant's Application shows on the timeline and in the preflight. Runs on the
session rig (tests/e2e/conftest.py), whose generator replicas watch both namespaces.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.harness import argocd
from tests.harness.fleet import Rig, cluster_name
from tests.harness.guard import HELD, held_messages
from tests.harness.procs import wait_until
from tests.harness.services import TEAM_A_PATH
from tests.harness.sink import Message

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

NAME = "web"
API = "argoproj.io/v1alpha1"
CLUSTERS = [cluster_name(0), cluster_name(1)]
#: every destination of the rig's receiver: the catch-all, the lifecycle one and team-a's
ALL_PATHS = ("/alerts", "/lifecycle", TEAM_A_PATH)


def _appset(rig: Rig, namespace: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return rig.tenant_appset(NAME, namespace, parameters)


def _error(rig: Rig, namespace: str) -> str:
    appset = rig.platform.mgmt.get(API, "ApplicationSet", NAME, namespace) or {}
    for condition in (appset.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "ErrorOccurred" and condition.get("status") == "True":
            return str(condition.get("message") or "")
    return ""


def _apps(rig: Rig, namespace: str) -> dict[str, str]:
    """name -> uid of the Applications ``web`` owns in ``namespace`` (not those being deleted)."""
    out = {}
    for app in rig.platform.mgmt.list(API, "Application", namespace):
        meta = app["metadata"]
        owners = meta.get("ownerReferences") or []
        owned = any(r.get("kind") == "ApplicationSet" and r.get("name") == NAME for r in owners)
        if owned and not meta.get("deletionTimestamp"):
            out[meta["name"]] = meta["uid"]
    return out


def _held_events(rig: Rig, namespace: str) -> list[dict[str, Any]]:
    return [
        e for e in rig.platform.mgmt.list("v1", "Event", namespace)
        if e.get("reason") == "MassDropHeld" and (e.get("involvedObject") or {}).get("name") == NAME
    ]  # fmt: skip


def _ambiguous(rig: Rig, namespace: str) -> str | None:
    """The refusal of ``namespace/web`` for its name being in both tenants' namespaces; a refusal of an
    earlier reconcile (Argo CD asked before the generator's watch saw the ApplicationSet: "no
    ApplicationSet 'web'") is asked again."""
    message = _error(rig, namespace)
    if "exist in 2 namespaces" in message:
        return message
    if message:
        _refresh(rig, namespace)
    return None


def _held_told(rig: Rig, before: int) -> list[Message]:
    """The held answers the receiver delivered since ``before``, at any of its destinations."""
    return held_messages(rig, ALL_PATHS)[before:]


def _refresh(rig: Rig, namespace: str) -> None:
    """What the Refresh button does: Argo CD runs the generators again now."""
    rig.platform.mgmt.merge_patch(
        API, "ApplicationSet", NAME,
        {"metadata": {"annotations": {"argocd.argoproj.io/application-set-refresh": "true"}}}, namespace=namespace,
    )  # fmt: skip


def _cli(rig: Rig, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(rig.platform.binaries.cli), *args, "--kubeconfig", str(rig.platform.management.kubeconfig)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.fixture
def tenants(rig: Rig) -> Iterator[Rig]:
    """Both tenants' ApplicationSets and Applications are gone afterwards (no garbage collector here)."""
    try:
        yield rig
    finally:
        for namespace in argocd.TENANTS:
            rig.platform.mgmt.delete(API, "ApplicationSet", NAME, namespace)
        for namespace in argocd.TENANTS:
            for name in _apps(rig, namespace):
                rig.platform.mgmt.delete(API, "Application", name, namespace)


def test_two_tenants_web_are_refused_until_placed_then_guarded_each_against_its_own(tenants: Rig) -> None:
    rig = tenants
    mine = {"names": CLUSTERS}
    for namespace in argocd.TENANTS:
        rig.platform.mgmt.apply(_appset(rig, namespace, mine))
    # the first one may have been answered while its name was still unique; once both exist, neither is
    # answered at its next reconcile (asked for here), each told how to disambiguate, its Applications kept
    for namespace in argocd.TENANTS:
        _refresh(rig, namespace)
    refused = {}
    for namespace in argocd.TENANTS:
        message = wait_until(lambda ns=namespace: _ambiguous(rig, ns), timeout=90,
                             what=f"Argo CD to show the refusal on {namespace}/web")  # fmt: skip
        assert "cannot place ApplicationSet 'web'" in message and "applicationSetNamespace" in message, message
        refused[namespace] = _apps(rig, namespace)

    # placed by the input: each gets one Application per cluster, in its own namespace
    for namespace in argocd.TENANTS:
        rig.platform.mgmt.apply(_appset(rig, namespace, {**mine, "applicationSetNamespace": namespace}))
    for namespace in argocd.TENANTS:
        wait_until(lambda ns=namespace: len(_apps(rig, ns)) == len(CLUSTERS) and not _error(rig, ns),
                   timeout=120, what=f"{namespace}/web answered with {len(CLUSTERS)} Applications")  # fmt: skip
    kept_a, kept_b = _apps(rig, "team-a"), _apps(rig, "team-b")
    for namespace, kept in (("team-a", kept_a), ("team-b", kept_b)):  # nothing made before the refusal went
        assert refused[namespace].items() <= kept.items(), (namespace, refused[namespace], kept)

    # team-a's input selects nothing any more: a mass drop of its own two, held; team-b is not involved
    told_before = len(held_messages(rig, ALL_PATHS))
    drop = {"names": ["no-such-cluster"], "applicationSetNamespace": "team-a"}
    rig.platform.mgmt.apply(_appset(rig, "team-a", drop))
    message = wait_until(lambda: _error(rig, "team-a") if HELD in _error(rig, "team-a") else None, timeout=120,
                         what="Argo CD to show the held answer on team-a/web")  # fmt: skip
    assert "ApplicationSet 'team-a/web'" in message and "2 of the 2 clusters" in message, message
    wait_until(lambda: _held_events(rig, "team-a"), timeout=60, what="the MassDropHeld Event on team-a/web")
    assert _apps(rig, "team-a") == kept_a
    assert not _held_events(rig, "team-b")
    # one receiver message, routed by its namespace to team-a's destination and to no other
    told = wait_until(lambda: _held_told(rig, told_before) or None, timeout=60,
                      what="the held answer at team-a's destination")  # fmt: skip
    assert [m.path for m in told] == [TEAM_A_PATH], [(m.path, m.body.get("title")) for m in told]
    event = told[0].body["event"]
    assert (event["namespace"], event["labels"]["applicationSet"]) == ("team-a", NAME), event
    _refresh(rig, "team-b")
    wait_until(
        lambda: not (rig.platform.mgmt.get(API, "ApplicationSet", NAME, "team-b") or {})["metadata"]
        .get("annotations", {}).get("argocd.argoproj.io/application-set-refresh"),
        timeout=60, what="team-b/web reconciled again",
    )  # fmt: skip
    assert not _error(rig, "team-b") and _apps(rig, "team-b") == kept_b

    # a tenant's Application, found as namespace/name by the timeline and by the preflight per project
    app = sorted(kept_a)[0]
    result = _cli(rig, "timeline", f"team-a/{app}", "--since", "1h", "-o", "json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["application"]["namespace"] == "team-a"
    result = _cli(rig, "preflight", CLUSTERS[0], "--to", "1.37", "-o", "json", "--fail-on", "never",
                  "--application-namespace", "team-a", "--project", "default")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert f"team-a/web-{CLUSTERS[0]}" in json.loads(result.stdout)["applications"]
