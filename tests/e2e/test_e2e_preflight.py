"""Scenario 7 of the end-to-end tier: the upgrade preflight and gate on real Argo CD.

The downstream kube-apiserver serves storage.k8s.io/v1beta1 (switched on with --runtime-config), which
Kubernetes 1.37 removes. A plain-directory Application deploys a VolumeAttributesClass on it, and a
plugin-rendered Application deploys another one. `preflight downstream --to 1.37` (live, and from the
same objects saved as files) names the first as a blocker and the second as rewritten at render; setting
`argocd-lifecycle.io/upgrade-to: "1.37"` on the cluster Secret makes the generator's gate publish the
block (annotations, Event, fleet page, one catalog message); fixing the manifest in Git clears it.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.harness import argocd
from tests.harness.loop import APPS, CLUSTER_NAME, CLUSTER_SECRET, PREFIX, Loop, record
from tests.harness.procs import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

PLAIN, RENDERED = "preflight-plain", "preflight-plugin"
NAMESPACE = "preflight"
TARGET = "1.37"
TRIGGER = "on-cluster-upgrade-blocked"
BLOCKED_OBJECT = "argocd/preflight-plain: VolumeAttributesClass fast (storage.k8s.io/v1beta1)"
#: the gate's summary: the projects owning the blockers, then each blocker
BLOCKED_SUMMARY = f"by project: default 1; {BLOCKED_OBJECT}"


def application(loop: Loop, name: str, *, plugin: bool) -> dict[str, Any]:
    source: dict[str, Any] = {"repoURL": loop.platform.git.url, "path": name, "targetRevision": "main"}
    if plugin:
        source["plugin"] = {"name": "argocd-lifecycle-v1"}
    return {
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": name, "namespace": argocd.NAMESPACE},
        "spec": {
            "project": "default", "source": source,
            "destination": {"server": loop.platform.downstream.server, "namespace": NAMESPACE},
            "syncPolicy": {"automated": {}, "syncOptions": ["CreateNamespace=true"]},
        },
    }  # fmt: skip


def app(loop: Loop, name: str) -> dict[str, Any]:
    return loop.platform.mgmt.get("argoproj.io/v1alpha1", "Application", name, argocd.NAMESPACE) or {}


def vac_version(loop: Loop, name: str) -> str | None:
    """The version Argo CD lists for the app's VolumeAttributesClass, once synced."""
    status = app(loop, name).get("status") or {}
    if (status.get("sync") or {}).get("status") != "Synced":
        return None
    found = [r for r in status.get("resources") or [] if r.get("kind") == "VolumeAttributesClass"]
    return str(found[0].get("version")) if found else None


def gate_annotations(loop: Loop) -> dict[str, str]:
    meta = (loop.secret() or {}).get("metadata") or {}
    return {k: v for k, v in (meta.get("annotations") or {}).items() if k.startswith(PREFIX + "upgrade")}


def events(loop: Loop, reason: str) -> list[dict[str, Any]]:
    return [
        e for e in loop.platform.mgmt.list("v1", "Event", argocd.NAMESPACE)
        if e.get("reason") == reason and (e.get("involvedObject") or {}).get("name") == CLUSTER_SECRET
    ]  # fmt: skip


def blocked_alerts(loop: Loop) -> list[Any]:
    return [m for m in loop.alerts() if (m.body.get("event") or {}).get("trigger") == TRIGGER]


def preflight(loop: Loop, *args: str) -> tuple[int, dict[str, Any]]:
    out = subprocess.run(
        [str(loop.platform.binaries.cli), "preflight", CLUSTER_NAME, "--to", TARGET, "-o", "json", *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.stdout, out.stderr
    return out.returncode, json.loads(out.stdout)


def verdicts(doc: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(i["application"], i["name"]): i["status"] for i in doc["items"] if i["kind"] == "VolumeAttributesClass"}


def ensure_ready(loop: Loop) -> None:
    """Scenario 5 deletes the cluster Secret: register the cluster again when it is gone."""
    if loop.secret() is None:
        loop.register_cluster()
    loop.wait_phase("Ready", timeout=120)


def save_as_files(loop: Loop, folder: Path) -> list[str]:
    """What `kubectl get applications -o json` and `kubectl get secret -o json` print for argocd."""
    files = []
    for kind, name in (("Application", "applications.json"), ("Secret", "secrets.json")):
        api = "argoproj.io/v1alpha1" if kind == "Application" else "v1"
        items = [{"apiVersion": api, "kind": kind, **i} for i in loop.platform.mgmt.list(api, kind, argocd.NAMESPACE)]
        (folder / name).write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, default=str))
        files += ["--from-file", str(folder / name)]
    return files


def cluster_row(loop: Loop) -> dict[str, Any]:
    doc = httpx.get(f"{loop.generator_url}/api/v1/clusters", timeout=10).json()
    return next(c for c in doc["clusters"] if c["name"] == CLUSTER_NAME)


def test_7_preflight_names_the_blocker_and_the_gate_holds_until_git_is_fixed(
    loop: Loop, timings: dict[str, float], tmp_path: Path
) -> None:
    ensure_ready(loop)
    git = loop.platform.git
    git.copy_tree(APPS / PLAIN, PLAIN)
    git.copy_tree(APPS / RENDERED, RENDERED)
    git.commit("preflight: VolumeAttributesClasses on storage.k8s.io/v1beta1, which 1.37 removes")
    for name, plugin in ((PLAIN, False), (RENDERED, True)):
        loop.platform.mgmt.apply(application(loop, name, plugin=plugin))
    for name in (PLAIN, RENDERED):
        wait_until(lambda n=name: vac_version(loop, n) == "v1beta1", timeout=180, what=f"{name} to sync v1beta1")
    assert loop.platform.down.get("storage.k8s.io/v1beta1", "VolumeAttributesClass", "fast") is not None

    # the preflight, live from the management cluster and from the same objects saved as files
    code, live = preflight(loop, "--kubeconfig", str(loop.platform.management.kubeconfig), "-n", argocd.NAMESPACE)
    assert code == 3, live
    assert verdicts(live) == {("argocd/preflight-plain", "fast"): "blocker",
                              ("argocd/preflight-plugin", "fast-rendered"): "rewritten"}  # fmt: skip
    assert live["currentVersion"] == "1.34" and live["targetVersion"] == TARGET
    assert any(d["apiVersion"] == "storage.k8s.io/v1beta1" for d in live["droppedApis"])
    code, offline = preflight(loop, *save_as_files(loop, tmp_path))
    assert code == 3 and verdicts(offline) == verdicts(live)

    # the gate: upgrade-to on the Secret
    started = time.monotonic()
    loop.platform.mgmt.merge_patch(
        "v1", "Secret", CLUSTER_SECRET, {"metadata": {"annotations": {PREFIX + "upgrade-to": TARGET}}}, argocd.NAMESPACE
    )
    gate = wait_until(
        lambda: gate_annotations(loop) if gate_annotations(loop).get(PREFIX + "upgrade-blockers") == "1" else None,
        timeout=120, what="the gate to count one blocker",
    )  # fmt: skip
    record(timings, "upgrade_to_blocked_annotation_s", time.monotonic() - started)
    assert gate[PREFIX + "upgrade-blocked"] == BLOCKED_SUMMARY  # the plugin-rendered one is not a blocker
    assert gate[PREFIX + "upgrade-blocked-since"].endswith("Z")
    blocked = wait_until(lambda: events(loop, "ClusterUpgradeBlocked"), timeout=60, what="ClusterUpgradeBlocked")
    assert blocked[0]["type"] == "Warning" and BLOCKED_OBJECT in blocked[0]["message"], blocked[0]
    assert "1 object(s) rewritten at render by the plugin" in blocked[0]["message"]
    row = cluster_row(loop)
    assert (row["upgradeTo"], row["upgradeBlockers"], row["upgradeBlocked"]) == (TARGET, 1, BLOCKED_SUMMARY)

    alerts = wait_until(lambda: blocked_alerts(loop) or None, timeout=180, what=f"the {TRIGGER} message at the sink")
    record(timings, "upgrade_to_blocked_message_s", alerts[0].received - started)
    text = f"{alerts[0].body.get('title', '')} {alerts[0].body.get('text', '')}"
    assert BLOCKED_OBJECT in text and loop.platform.downstream.server in text, alerts[0].body

    # the manifest fixed in Git: Argo CD syncs storage.k8s.io/v1, the gate clears
    fixed = (APPS / PLAIN / "vac.yaml").read_text().replace("storage.k8s.io/v1beta1", "storage.k8s.io/v1")
    git.write({f"{PLAIN}/vac.yaml": fixed})
    git.commit("preflight-plain: VolumeAttributesClass on storage.k8s.io/v1")
    fixed_at = time.monotonic()
    loop.platform.mgmt.merge_patch(
        "argoproj.io/v1alpha1", "Application", PLAIN,
        {"metadata": {"annotations": {"argocd.argoproj.io/refresh": "normal"}}}, argocd.NAMESPACE,
    )  # fmt: skip
    wait_until(lambda: vac_version(loop, PLAIN) == "v1", timeout=180, what=f"{PLAIN} to sync storage.k8s.io/v1")
    wait_until(
        lambda: gate_annotations(loop).get(PREFIX + "upgrade-blockers") == "0", timeout=120, what="the gate to clear"
    )
    record(timings, "git_fix_to_clear_s", time.monotonic() - fixed_at)
    assert PREFIX + "upgrade-blocked" not in gate_annotations(loop)
    clear = wait_until(lambda: events(loop, "ClusterUpgradeClear"), timeout=60, what="ClusterUpgradeClear")
    assert clear[0]["type"] == "Normal" and "nothing blocks it" in clear[0]["message"]
    assert cluster_row(loop)["upgradeBlockers"] == 0
    assert len(blocked_alerts(loop)) == 1, [m.body for m in blocked_alerts(loop)]  # one message per episode

    # leave the cluster as the other scenarios expect it
    loop.platform.mgmt.merge_patch(
        "v1", "Secret", CLUSTER_SECRET, {"metadata": {"annotations": {PREFIX + "upgrade-to": None}}}, argocd.NAMESPACE
    )
    wait_until(lambda: not gate_annotations(loop), timeout=60, what="the gate's annotations to go")
