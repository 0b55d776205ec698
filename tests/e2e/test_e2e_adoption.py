"""Scenario 9 of the end-to-end tier: switching an existing autoscaled Deployment to the plugin.

An Application without the plugin synced a Deployment with `spec.replicas: 3` and an HPA (min 3) by
client-side apply, Argo CD's default. The switch (the marker file in the folder) renders the Deployment
without `spec.replicas`, as `hpaAwareReplicas` drops it. No controller-manager runs here, so neither the
HPA nor the Deployment controller acts: what is asserted is `spec.replicas` as the API server stores it,
every value of it (one watch), which is what the Deployment controller would scale to at once.

Without a step first, the switch stores 1 (Kubernetes' default for a removed `replicas`): under
client-side apply the three-way merge against the last-applied annotation sends `replicas: null`, also
after the HPA had scaled; under server-side apply kubectl moves the fields argocd-controller owned by
client-side apply (`replicas` with them) into its apply entry and applies again without them. Only an
HPA that had already scaled keeps its count under server-side apply (its manager owns the field). The
steps of Kubernetes' HPA migration guide, and a name-scoped `ignoreDifferences` with
`RespectIgnoreDifferences=true`, keep 3 (docs/guide/plugin.md, "Adopting an existing autoscaled workload").
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from kubernetes import client as k8s
from kubernetes import watch
from kubernetes.client.exceptions import ApiException

from tests.harness import argocd
from tests.harness.loop import last_applied, record
from tests.harness.platform import Platform
from tests.harness.procs import HarnessError, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

APP = Path(__file__).parent / "apps" / "adoption"
IN_CLUSTER = "https://kubernetes.default.svc"
SELECTOR = "e2e-adoption=web"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
SYNC_TIMEOUT = 120

EDIT = "edit-last-applied"  # the guide's step for client-side apply
HANDOVER = "handover"  # the guide's step for server-side apply: a server-side sync first, then the handover
IGNORE = "ignore-differences"  # Argo CD's: ignoreDifferences on /spec/replicas of the workload, respected at sync


@dataclass(frozen=True)
class Scenario:
    name: str
    server_side: bool = False  # the switched Application applies server-side
    step: str = ""  # what is done before the switch (one of the three above), or nothing
    scaled_to: int | None = None  # the HPA changed the count (scale subresource) before the switch

    @property
    def namespace(self) -> str:
        return f"adopt-{self.name}"


SCENARIOS = [
    Scenario("csa"),
    Scenario("ssa", server_side=True),
    Scenario("scaled-csa", scaled_to=4),
    Scenario("scaled-ssa", server_side=True, scaled_to=4),
    Scenario("guide-csa", step=EDIT),
    Scenario("guide-ssa", server_side=True, step=HANDOVER),
    Scenario("ignore-csa", step=IGNORE),
    Scenario("ignore-ssa", server_side=True, step=IGNORE),
]
BY_NAME = {s.name: s for s in SCENARIOS}
WITH_A_STEP = [s for s in SCENARIOS if s.step]


class ReplicaWatch:
    """Every stored `spec.replicas` of the scenarios' Deployments, in order, from one watch: a value that
    lasted a single write is seen too. A watch the server can no longer resume (events lost) is reported."""

    def __init__(self, api_client: k8s.ApiClient) -> None:
        self.apps = k8s.AppsV1Api(api_client)
        self.seen: dict[str, list[tuple[int, int]]] = {}  # namespace -> (resourceVersion, replicas)
        self.lost = ""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._version = self.apps.list_deployment_for_all_namespaces(label_selector=SELECTOR).metadata.resource_version
        self._thread = threading.Thread(target=self._run, name="e2e-adoption-replicas", daemon=True)
        self._thread.start()

    def values(self, namespace: str, since: int = 0) -> list[int]:
        with self._lock:
            return [replicas for version, replicas in self.seen.get(namespace, []) if version > since]

    def caught_up(self, namespace: str, version: int) -> bool:
        if self.lost:
            raise HarnessError(self.lost)  # waiting cannot bring the lost events back
        with self._lock:
            return bool(self.seen.get(namespace)) and self.seen[namespace][-1][0] >= version

    def _run(self) -> None:
        version = self._version
        while not self._stop.is_set():
            try:
                stream = watch.Watch().stream(
                    self.apps.list_deployment_for_all_namespaces, label_selector=SELECTOR,
                    resource_version=version, timeout_seconds=30,
                )  # fmt: skip
                for event in stream:  # an ERROR event is raised as ApiException
                    obj = event["raw_object"]
                    version = obj["metadata"]["resourceVersion"]
                    with self._lock:
                        self.seen.setdefault(obj["metadata"]["namespace"], []).append(
                            (int(version), int(obj["spec"].get("replicas", 1)))
                        )
            except ApiException as exc:
                if exc.status == 410:  # too old to resume from: values in between are unknown
                    self.lost = f"the watch of the Deployments could not resume from {version}: {exc.reason}"
                    return
                time.sleep(0.5)
            except Exception:  # a dropped connection: resume from the last version seen
                time.sleep(0.5)

    def close(self) -> None:
        self._stop.set()


# -- what the operator, kubectl and the HPA controller send ------------------------------------------


def deployment(platform: Platform, s: Scenario) -> dict[str, Any]:
    found = platform.mgmt.get("apps/v1", "Deployment", "web", s.namespace)
    assert found is not None, f"Deployment web missing in {s.namespace}"
    return found


def request(platform: Platform, method: str, path: str, body: object, content_type: str, **params: str) -> None:
    with platform.management.http() as http:
        answer = http.request(
            method, path, content=json.dumps(body), params=params, headers={"Content-Type": content_type}
        )
    assert answer.status_code == 200, f"{method} {path}: {answer.status_code} {answer.text[:300]}"


def edit_last_applied(platform: Platform, s: Scenario) -> None:
    """`kubectl apply edit-last-applied deployment/web`, `spec.replicas` deleted in the editor: what kubectl
    sends is a JSON merge patch of the annotation alone, as field manager kubectl-client-side-apply."""
    config = last_applied(deployment(platform, s))
    del config["spec"]["replicas"]
    patch = {"metadata": {"annotations": {LAST_APPLIED: json.dumps(config, separators=(",", ":"))}}}
    path = f"/apis/apps/v1/namespaces/{s.namespace}/deployments/web"
    request(platform, "PATCH", path, patch, "application/merge-patch+json", fieldManager="kubectl-client-side-apply")


def client_side_owners_of_last_applied(obj: dict[str, Any]) -> list[str]:
    """Update managers owning the last-applied annotation: the ones `kubectl apply --server-side` migrates."""
    return [
        m["manager"] for m in obj["metadata"].get("managedFields") or []
        if m["operation"] == "Update"
        and f"f:{LAST_APPLIED}" in (m.get("fieldsV1") or {}).get("f:metadata", {}).get("f:annotations", {})
    ]  # fmt: skip


def hand_over(platform: Platform, s: Scenario) -> None:
    """`kubectl apply --server-side --field-manager=handover-to-hpa --validate=false -f` of a Deployment that
    holds only `spec.replicas: 3` (the server-side apply guide's "Transferring ownership"). kubectl first
    moves every field of a client-side manager owning the last-applied annotation to handover-to-hpa (it then
    keeps fields Git drops later): the guide's step is for an object applied server-side, as here, when
    kubectl's request is this one apply patch."""
    obj = deployment(platform, s)
    assert client_side_owners_of_last_applied(obj) == [], obj["metadata"]["managedFields"]
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": 3}}
    path = f"/apis/apps/v1/namespaces/{s.namespace}/deployments/web"
    request(
        platform, "PATCH", path, body, "application/apply-patch+yaml",
        fieldManager="handover-to-hpa", fieldValidation="Ignore",
    )  # fmt: skip


def hpa_scales(platform: Platform, s: Scenario, replicas: int) -> None:
    """What the HPA controller does: an update of the scale subresource, as kube-controller-manager."""
    path = f"/apis/apps/v1/namespaces/{s.namespace}/deployments/web/scale"
    with platform.management.http() as http:
        scale = http.get(path).json()
    scale["spec"]["replicas"] = replicas
    request(platform, "PUT", path, scale, "application/json", fieldManager="kube-controller-manager")


def replica_managers(obj: dict[str, Any]) -> list[str]:
    return [
        f"{m['manager']} {m['operation']}" for m in obj["metadata"].get("managedFields") or []
        if "f:replicas" in (m.get("fieldsV1") or {}).get("f:spec", {})
    ]  # fmt: skip


# -- Argo CD ------------------------------------------------------------------------------------------


def application(platform: Platform, s: Scenario, *, server_side: bool, switched: bool) -> dict[str, Any]:
    options = ["CreateNamespace=true"] + (["ServerSideApply=true"] if server_side else [])
    spec: dict[str, Any] = {
        "project": "default",
        "source": {"repoURL": platform.git.url, "path": f"adoption/{s.name}", "targetRevision": "main"},
        "destination": {"server": IN_CLUSTER, "namespace": s.namespace},
        "syncPolicy": {"automated": {}, "syncOptions": options},
    }
    if switched and s.step == IGNORE:
        options.append("RespectIgnoreDifferences=true")
        spec["ignoreDifferences"] = [
            {"group": "apps", "kind": "Deployment", "name": "web", "jsonPointers": ["/spec/replicas"]}
        ]
    return {
        "apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
        "metadata": {"name": s.namespace, "namespace": argocd.NAMESPACE}, "spec": spec,
    }  # fmt: skip


def get_app(platform: Platform, s: Scenario) -> dict[str, Any]:
    return platform.mgmt.get("argoproj.io/v1alpha1", "Application", s.namespace, argocd.NAMESPACE) or {}


def synced_at(platform: Platform, s: Scenario, revision: str, by: str = "") -> dict[str, Any] | None:
    """The Application after an operation that synced ``revision`` succeeded (started by ``by``, if given)."""
    app = get_app(platform, s)
    status = app.get("status") or {}
    operation = status.get("operationState") or {}
    if operation.get("phase") in ("Failed", "Error"):
        raise HarnessError(f"{s.namespace}: sync {operation.get('phase')}: {operation.get('message')}")
    started_by = ((operation.get("operation") or {}).get("initiatedBy") or {}).get("username", "")
    if (
        not app.get("operation")
        and operation.get("phase") == "Succeeded"
        and (operation.get("syncResult") or {}).get("revision") == revision
        and (status.get("sync") or {}).get("revision") == revision
        and (not by or started_by == by)
    ):
        return app
    return None


def refresh(platform: Platform, s: Scenario) -> None:
    platform.mgmt.merge_patch(
        "argoproj.io/v1alpha1", "Application", s.namespace,
        {"metadata": {"annotations": {"argocd.argoproj.io/refresh": "normal"}}}, argocd.NAMESPACE,
    )  # fmt: skip


def sync_server_side(platform: Platform, s: Scenario, revision: str) -> None:
    """ServerSideApply=true on the Application and a sync of the same revision (`argocd app sync`)."""
    app = application(platform, s, server_side=True, switched=False)
    platform.mgmt.apply(app)
    options = app["spec"]["syncPolicy"]["syncOptions"]  # a manual sync names its options, as the CLI does
    operation = {"initiatedBy": {"username": "e2e-adoption"}, "sync": {"revision": revision, "syncOptions": options}}
    platform.mgmt.merge_patch(
        "argoproj.io/v1alpha1", "Application", s.namespace, {"operation": operation}, argocd.NAMESPACE
    )
    wait_until(
        lambda: synced_at(platform, s, revision, by="e2e-adoption"), timeout=SYNC_TIMEOUT,
        what=f"{s.name} to sync by server-side apply",
    )  # fmt: skip


def manifest(image: str) -> str:
    doc = yaml.safe_load((APP / "deployment.yaml").read_text())
    doc["spec"]["template"]["spec"]["containers"][0]["image"] = image
    return yaml.safe_dump(doc)  # still spec.replicas: 3: the plugin drops it


@dataclass
class Adoption:
    platform: Platform
    watch: ReplicaWatch
    switched_at: dict[str, int]  # namespace -> the Deployment's resourceVersion just before the switch

    def caught_up(self, s: Scenario) -> dict[str, Any]:
        obj = deployment(self.platform, s)
        version = int(obj["metadata"]["resourceVersion"])
        wait_until(lambda: self.watch.caught_up(s.namespace, version), timeout=30, what=f"the watch of {s.name}")
        return obj

    def wait_synced(self, revision: str, what: str) -> None:
        for s in SCENARIOS:
            wait_until(lambda: synced_at(self.platform, s, revision), timeout=SYNC_TIMEOUT, what=f"{s.name} {what}")


@pytest.fixture(scope="module")
def adoption(platform: Platform, timings: dict[str, float]) -> Iterator[Adoption]:
    """Every scenario up to and including the switch; the Applications are deleted afterwards."""
    started = time.monotonic()
    replicas = ReplicaWatch(platform.mgmt.api_client)
    try:
        for s in SCENARIOS:
            platform.git.copy_tree(APP, f"adoption/{s.name}")
        before = platform.git.commit("adoption: an autoscaled Deployment with spec.replicas 3, no plugin")
        for s in SCENARIOS:
            platform.mgmt.apply(application(platform, s, server_side=False, switched=False))
        run = Adoption(platform, replicas, {})
        run.wait_synced(before, "to sync by client-side apply")

        for s in SCENARIOS:
            if s.scaled_to:
                hpa_scales(platform, s, s.scaled_to)
            if s.step == EDIT:
                edit_last_applied(platform, s)
            if s.step == HANDOVER:  # a server-side sync while Git still has spec.replicas, then the handover
                sync_server_side(platform, s, before)
                hand_over(platform, s)
        for s in SCENARIOS:
            run.switched_at[s.namespace] = int(run.caught_up(s)["metadata"]["resourceVersion"])

        for s in SCENARIOS:  # the Applications' options first, so the switch's sync runs with them
            platform.mgmt.apply(application(platform, s, server_side=s.server_side, switched=True))
            platform.git.write({f"adoption/{s.name}/.argocd-lifecycle.yaml": "{}\n",
                                f"adoption/{s.name}/deployment.yaml": manifest("nginx:1.28")})  # fmt: skip
        switch = platform.git.commit("adoption: the plugin renders the folder (marker file), a new image")
        for s in SCENARIOS:
            refresh(platform, s)
        run.wait_synced(switch, "to sync the switch to the plugin")
        for s in SCENARIOS:
            assert get_app(platform, s)["status"]["sourceType"] == "Plugin", s.name
            run.caught_up(s)
        record(timings, "adoption_scenarios_s", time.monotonic() - started)
        yield run
    finally:
        replicas.close()
        for s in SCENARIOS:
            platform.mgmt.delete("argoproj.io/v1alpha1", "Application", s.namespace, argocd.NAMESPACE)


def test_9a_without_a_step_the_switch_stores_replicas_1(adoption: Adoption) -> None:
    for name in ("csa", "ssa", "scaled-csa"):
        s = BY_NAME[name]
        seen = adoption.watch.values(s.namespace, since=adoption.switched_at[s.namespace])
        assert 1 in seen, (name, seen, adoption.watch.values(s.namespace))
        assert deployment(adoption.platform, s)["spec"]["replicas"] == 1, name
    # the client-side apply sent the plugin's render: no spec.replicas, so the server defaulted it
    assert "replicas" not in last_applied(deployment(adoption.platform, BY_NAME["csa"]))["spec"]
    # once the HPA has scaled, its manager owns the count: a server-side apply leaves it
    scaled = BY_NAME["scaled-ssa"]
    assert set(adoption.watch.values(scaled.namespace, since=adoption.switched_at[scaled.namespace])) == {4}
    assert replica_managers(deployment(adoption.platform, scaled)) == ["kube-controller-manager Update"]


@pytest.mark.parametrize("s", WITH_A_STEP, ids=[s.name for s in WITH_A_STEP])
def test_9b_each_documented_step_keeps_3_replicas_through_the_switch(adoption: Adoption, s: Scenario) -> None:
    seen = adoption.watch.values(s.namespace)
    assert seen and set(seen) == {3}, seen  # every stored value, from creation to after the switch
    obj = deployment(adoption.platform, s)
    if s.step == EDIT:
        assert "replicas" not in last_applied(obj)["spec"]
    if s.step == HANDOVER:
        assert "handover-to-hpa Apply" in replica_managers(obj)
        assert "argocd-controller Apply" not in replica_managers(obj)


def test_9c_server_side_apply_turned_on_later_resets_a_workload_adopted_client_side(adoption: Adoption) -> None:
    """Step 1 leaves `spec.replicas` with argocd-controller's client-side entry: the first server-side sync
    moves it into the server-side entry and drops it, as in the switch without a step."""
    platform, s = adoption.platform, BY_NAME["guide-csa"]
    assert replica_managers(adoption.caught_up(s)) == ["argocd-controller Update"]
    since = int(deployment(platform, s)["metadata"]["resourceVersion"])
    platform.mgmt.apply(application(platform, s, server_side=True, switched=True))
    platform.git.write({f"adoption/{s.name}/deployment.yaml": manifest("nginx:1.28.1")})
    later = platform.git.commit("adoption: guide-csa, now with ServerSideApply=true")
    refresh(platform, s)
    wait_until(lambda: synced_at(platform, s, later), timeout=SYNC_TIMEOUT, what=f"{s.name} to sync server-side")
    adoption.caught_up(s)
    assert 1 in adoption.watch.values(s.namespace, since=since), adoption.watch.values(s.namespace)


def test_9d_after_adoption_syncs_keep_what_the_hpa_chose(adoption: Adoption, timings: dict[str, float]) -> None:
    platform = adoption.platform
    started = time.monotonic()
    since: dict[str, int] = {}
    for s in SCENARIOS:
        hpa_scales(platform, s, 5)
        since[s.namespace] = int(adoption.caught_up(s)["metadata"]["resourceVersion"])
        platform.git.write({f"adoption/{s.name}/deployment.yaml": manifest("nginx:1.29")})
    later = platform.git.commit("adoption: a later change, Git still says spec.replicas 3")
    for s in SCENARIOS:
        refresh(platform, s)
    adoption.wait_synced(later, "to sync a later change")
    record(timings, "adoption_later_sync_s", time.monotonic() - started)
    for s in SCENARIOS:
        obj = adoption.caught_up(s)
        assert obj["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.29", s.name
        seen = adoption.watch.values(s.namespace, since=since[s.namespace])
        assert seen and set(seen) == {5}, (s.name, seen)
    # the HPA's first write took the count from the handover manager, which is then gone: no clean-up
    managers = {m["manager"] for m in deployment(platform, BY_NAME["guide-ssa"])["metadata"]["managedFields"]}
    assert "handover-to-hpa" not in managers, managers
