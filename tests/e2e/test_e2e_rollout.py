"""Rollouts on the real platform: Argo CD's ApplicationSet controller asks the rig's two generator replicas,
its templatePatch puts rollout.revision into targetRevision, its application controller syncs and
assesses health (a resource.customizations health check in argocd-cm reads a field the test sets).

Three clusters of their own (a canary and a second wave of two; each a port forwarded to the downstream
kube-apiserver, the rig's way of making clusters that can go away): a new revision reaches the canary
only; after the bake it reaches wave 2; a Degraded Application pauses the rollout with one receiver
message; resume finishes the next wave; a cluster stopped during it keeps its old revision and catches
up when it returns."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from argocd_lifecycle.generators.rollout.state import CONTROL_ANNOTATION, STATE_ANNOTATION, Status, decode
from tests.harness import argocd
from tests.harness.fleet import PLUGIN, Rig
from tests.harness.procs import wait_until
from tests.harness.tcp import Forward

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

APPSET = "rollout"
APP_PATH = "rollout"
CLUSTERS = {"ro-canary": "canary", "ro-w1": "wave2", "ro-w2": "wave2"}
HEALTH = """hs = {status = "Healthy", message = "healthy"}
if obj.data ~= nil and obj.data.healthy == "false" then
  hs.status = "Degraded"
  hs.message = "the test marked it unhealthy"
end
return hs
"""


def configmap(revision: str) -> str:
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rollout\n"
    return head + f"data:\n  revision: {revision}\n  healthy: 'true'\n"


def appset(rig: Rig, revision: str) -> dict[str, Any]:
    rollout = {
        "revision": revision,
        "waves": [
            {"name": "canary", "labelSelector": {"matchLabels": {"tier": "canary"}}},
            {"name": "wave2", "maxUnavailable": 2},
        ],
        "bakeTime": "20s",
        "maxUnavailable": 1,
    }
    parameters = {"labelSelector": {"matchLabels": {"env": "rollout"}}, "rollout": rollout}
    # selfHeal off: the test's edit of a live object stays until it reverts it
    patch = (
        "spec:\n  source:\n    targetRevision: '{{ .rollout.revision }}'\n"
        "  syncPolicy:\n    automated:\n      enabled: true\n      prune: false\n      selfHeal: false\n"
    )
    return {
        "apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet",
        "metadata": {"name": APPSET, "namespace": argocd.NAMESPACE},
        "spec": {
            "goTemplate": True, "goTemplateOptions": ["missingkey=error"],
            "generators": [{"plugin": {"configMapRef": {"name": PLUGIN}, "input": {"parameters": parameters},
                                       "requeueAfterSeconds": 10}}],
            "syncPolicy": {"preserveResourcesOnDeletion": True},
            "template": {
                "metadata": {"name": "rollout-{{ .nameNormalized }}"},
                "spec": {
                    "project": "default",
                    "source": {"repoURL": rig.platform.git.url, "targetRevision": "main", "path": APP_PATH},
                    "destination": {"server": "{{ .server }}", "namespace": "{{ .name }}"},
                },
            },
            "templatePatch": patch,
        },
    }  # fmt: skip


class Scenario:
    def __init__(self, rig: Rig) -> None:
        self.rig = rig
        self.mgmt = rig.platform.mgmt
        self.forwards: dict[str, Forward] = {}

    def secret(self, name: str) -> dict[str, Any]:
        down = self.rig.platform.downstream
        labels = {"argocd.argoproj.io/secret-type": "cluster", "env": "rollout"}
        if CLUSTERS[name] == "canary":
            labels["tier"] = "canary"
        return {
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": f"cluster-{name}", "namespace": argocd.NAMESPACE, "labels": labels},
            "stringData": {"name": name, "server": self.forwards[name].url,
                           "config": json.dumps(down.argocd_cluster_config())},
        }  # fmt: skip

    def apps(self) -> dict[str, dict[str, Any]]:
        listing = self.mgmt.list("argoproj.io/v1alpha1", "Application", argocd.NAMESPACE)
        out = {}
        for app in listing:
            if app["metadata"]["name"].startswith("rollout-ro-") and not app["metadata"].get("deletionTimestamp"):
                out[app["metadata"]["name"].removeprefix("rollout-")] = app
        return out

    def revisions(self) -> dict[str, str]:
        return {n: a["spec"]["source"].get("targetRevision", "") for n, a in self.apps().items()}

    def at(self, name: str, revision: str) -> bool:
        app = self.apps().get(name) or {}
        status = app.get("status") or {}
        return (
            (app.get("spec") or {}).get("source", {}).get("targetRevision") == revision
            and (status.get("sync") or {}).get("status") == "Synced"
            and (status.get("sync") or {}).get("revision", "") != ""
            and (status.get("health") or {}).get("status") == "Healthy"
            and self.live_revision(name) == revision
        )

    def live_revision(self, name: str) -> str:
        live = self.rig.platform.down.get("v1", "ConfigMap", "rollout", name) or {}
        return str((live.get("data") or {}).get("revision", ""))

    def state(self) -> Any:
        obj = self.mgmt.get("argoproj.io/v1alpha1", "ApplicationSet", APPSET, argocd.NAMESPACE) or {}
        text = ((obj.get("metadata") or {}).get("annotations") or {}).get(STATE_ANNOTATION)
        return decode(text) if text else None

    def control(self) -> str | None:
        obj = self.mgmt.get("argoproj.io/v1alpha1", "ApplicationSet", APPSET, argocd.NAMESPACE) or {}
        return ((obj.get("metadata") or {}).get("annotations") or {}).get(CONTROL_ANNOTATION)

    def events(self, reason: str) -> int:
        items = self.mgmt.list("v1", "Event", argocd.NAMESPACE)
        return sum(
            int(e.get("count") or 1)
            for e in items
            if (e.get("involvedObject") or {}).get("name") == APPSET and e.get("reason") == reason
        )

    def paused_messages(self) -> list[Any]:
        return [
            m for m in self.rig.sink.messages()
            if m.path == "/alerts" and (m.body.get("event") or {}).get("trigger") == "RolloutPaused"
        ]  # fmt: skip

    def set_health(self, name: str, healthy: bool) -> None:
        self.rig.platform.down.merge_patch(
            "v1", "ConfigMap", "rollout", {"data": {"healthy": "true" if healthy else "false"}}, namespace=name
        )


def test_a_rollout_goes_in_waves_pauses_on_degraded_and_skips_a_cluster_that_is_down(rig: Rig) -> None:
    platform, s = rig.platform, Scenario(rig)
    platform.mgmt.merge_patch(
        "v1", "ConfigMap", "argocd-cm", {"data": {"resource.customizations.health.ConfigMap": HEALTH}},
        namespace=argocd.NAMESPACE,
    )  # fmt: skip
    for revision in ("v1", "v2", "v3"):
        platform.git.write({f"{APP_PATH}/configmap.yaml": configmap(revision)})
        platform.git.commit(f"rollout: {revision}")
        platform.git.tag(revision)
    for name in CLUSTERS:
        s.forwards[name] = Forward(rig.tcp, [platform.downstream.port])
        s.forwards[name].up()
        platform.down.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        platform.mgmt.apply(s.secret(name))
    try:
        # the first revision everywhere: nothing ran before, so nothing is rolled
        platform.mgmt.apply(appset(rig, "v1"))
        wait_until(lambda: all(s.at(n, "v1") for n in CLUSTERS), timeout=240, what="every cluster at v1")
        assert s.state().status is Status.DONE

        # v2: the canary only, then, after the bake, wave 2
        platform.mgmt.apply(appset(rig, "v2"))
        wait_until(lambda: s.at("ro-canary", "v2"), timeout=180, what="the canary at v2")
        assert s.revisions()["ro-w1"] == "v1" and s.revisions()["ro-w2"] == "v1"
        wait_until(lambda: s.state().status is Status.BAKING, timeout=60, what="the canary baking")
        time.sleep(5)
        revisions = s.revisions()
        if s.state().wave == 0:  # still the canary's bake: wave 2 has nothing yet
            assert revisions["ro-w1"] == "v1" and revisions["ro-w2"] == "v1"
        wait_until(lambda: s.at("ro-w1", "v2") and s.at("ro-w2", "v2"), timeout=180, what="wave 2 at v2")
        wait_until(lambda: s.state().status is Status.DONE, timeout=60, what="the rollout of v2 done")
        assert s.events("RolloutWaveBaked") >= 2 and s.events("RolloutFinished") >= 1

        # v3: the canary Degraded pauses the rollout, with one message naming its Application
        platform.mgmt.apply(appset(rig, "v3"))
        wait_until(lambda: s.at("ro-canary", "v3"), timeout=180, what="the canary at v3")
        s.set_health("ro-canary", False)
        wait_until(lambda: s.state().status is Status.PAUSED, timeout=120, what="the rollout paused")
        wait_until(s.paused_messages, timeout=60, what="the pause told")
        (told,) = s.paused_messages()
        assert "rollout-ro-canary" in json.dumps(told.body)
        time.sleep(22)  # longer than the bake: a paused rollout gives wave 2 nothing
        assert s.state().status is Status.PAUSED
        assert s.revisions()["ro-w1"] == "v2" and s.revisions()["ro-w2"] == "v2"

        # healthy again, one cluster of wave 2 down, resume: the other gets v3, the stopped one keeps v2
        s.set_health("ro-canary", True)
        s.forwards["ro-w2"].down()
        wait_until(lambda: _phase(s, "ro-w2") == "Unreachable", timeout=60, what="ro-w2 Unreachable")
        resume = {"metadata": {"annotations": {CONTROL_ANNOTATION: "resume"}}}
        platform.mgmt.merge_patch("argoproj.io/v1alpha1", "ApplicationSet", APPSET, resume, namespace=argocd.NAMESPACE)
        wait_until(lambda: s.control() is None, timeout=60, what="the resume acted on and removed")
        wait_until(lambda: s.at("ro-w1", "v3"), timeout=180, what="ro-w1 at v3")
        assert s.revisions()["ro-w2"] == "v2"
        assert s.state().status is not Status.DONE
        s.forwards["ro-w2"].up()
        wait_until(lambda: s.at("ro-w2", "v3"), timeout=240, what="ro-w2 caught up at v3")
        wait_until(lambda: s.state().status is Status.DONE, timeout=60, what="the rollout of v3 done")
        assert len(s.paused_messages()) == 1
    finally:
        platform.mgmt.delete("argoproj.io/v1alpha1", "ApplicationSet", APPSET, argocd.NAMESPACE)
        # no garbage collector runs here (no controller-manager): the owned Applications go by hand
        for name in CLUSTERS:
            platform.mgmt.delete("argoproj.io/v1alpha1", "Application", f"rollout-{name}", argocd.NAMESPACE)
        wait_until(lambda: not s.apps(), timeout=120, what="the rollout's Applications gone")
        for name in CLUSTERS:
            platform.mgmt.delete("v1", "Secret", f"cluster-{name}", argocd.NAMESPACE)
            s.forwards[name].down()


def _phase(s: Scenario, name: str) -> str:
    secret = s.mgmt.get("v1", "Secret", f"cluster-{name}", argocd.NAMESPACE) or {}
    return str(((secret.get("metadata") or {}).get("annotations") or {}).get("argocd-lifecycle.io/phase", ""))
