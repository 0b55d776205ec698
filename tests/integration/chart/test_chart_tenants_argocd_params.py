"""Argo CD's namespaces from argocd-cmd-params-cm, with the real generator started with the chart's
arguments as its ServiceAccount under the chart's Roles on a real kube-apiserver: the Role lets it get
that ConfigMap and no other but argocd-cm; Argo CD takes ApplicationSets from ``team-*`` while the
generator watches team-a only, so team-a's ``web``, the only one it sees, is refused until its input
names team-a; Argo CD's Applications in ``/^team-/`` are unseen, so the upgrade gate blocks the cluster
naming them instead of saying clear."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from argocd_lifecycle.generators.fleet.argocd_params import (
    APPLICATION_NAMESPACES,
    APPSET_NAMESPACES,
    ARGOCD_CMD_PARAMS_CM,
)
from argocd_lifecycle.model import Annotation
from tests.harness.procs import wait_until
from tests.integration.chart.chartkit import render
from tests.integration.chart.realapi import NAMESPACE, RealApi
from tests.integration.chart.tenantkit import ACCOUNT, API, apply_web, fresh_election, start_generator

pytestmark = pytest.mark.upstream

TENANT = "team-a"
SETS = (f"generator.applicationNamespaces={{{TENANT}}}",)
PARAMS = {APPSET_NAMESPACES: f"{TENANT}, team-*", APPLICATION_NAMESPACES: f"{TENANT},/^team-/"}
GATE_KEYS = (Annotation.UPGRADE_TO, Annotation.UPGRADE_BLOCKERS, Annotation.UPGRADE_BLOCKED,
             Annotation.UPGRADE_BLOCKED_SINCE)  # fmt: skip


def _objects(api: RealApi) -> None:
    wanted = {"Role", "RoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
    api.admin.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": TENANT}})
    api.apply_all([d for d in render(sets=SETS) if d["kind"] in wanted])
    api.apply_cluster_self()
    apply_web(api, TENANT)


def _params(api: RealApi, data: dict[str, str | None]) -> None:
    """Set (or, with None, remove) keys of the ConfigMap Argo CD's install ships empty."""
    if api.admin.get("v1", "ConfigMap", ARGOCD_CMD_PARAMS_CM, NAMESPACE) is None:
        api.admin.apply({"apiVersion": "v1", "kind": "ConfigMap",
                         "metadata": {"name": ARGOCD_CMD_PARAMS_CM, "namespace": NAMESPACE}})  # fmt: skip
    api.admin.merge_patch("v1", "ConfigMap", ARGOCD_CMD_PARAMS_CM, {"data": data}, NAMESPACE)


def test_the_generator_may_get_argocd_cmd_params_cm_and_no_other_configmap(real_api: RealApi) -> None:
    with real_api.as_account(ACCOUNT) as client:
        base = f"/api/v1/namespaces/{NAMESPACE}/configmaps"
        assert client.get(f"{base}/{ARGOCD_CMD_PARAMS_CM}").status_code in (200, 404)
        assert client.get(f"{base}/argocd-rbac-cm").status_code == 403
        assert client.get(base).status_code == 403  # no list: resourceNames narrow get only
        patched = client.patch(
            f"{base}/{ARGOCD_CMD_PARAMS_CM}", json={"data": {APPSET_NAMESPACES: "*"}},
            headers={"Content-Type": "application/merge-patch+json"},
        )  # fmt: skip
        assert patched.status_code == 403


def test_unwatched_argo_cd_namespaces_refuse_the_name_alone_and_keep_the_gate_from_clear(
    real_api: RealApi, tmp_path: Path
) -> None:
    api = real_api
    fresh_election(api, "node-p")
    _objects(api)
    _params(api, dict(PARAMS))
    generator = start_generator(api, SETS, tmp_path, "pod-p")
    proc, ask = generator.proc, generator.ask

    def secret_annotations() -> dict[str, str]:
        found = api.admin.get("v1", "Secret", "cluster-self", NAMESPACE) or {}
        return dict(found.get("metadata", {}).get("annotations") or {})

    try:

        def answered() -> httpx.Response | None:
            proc.check_alive()
            try:
                response = ask(applicationSetNamespace=TENANT, names=["self"])
            except httpx.TransportError:
                return None
            return response if response.status_code == 200 and response.json()["output"]["parameters"] else None

        (params,) = wait_until(answered, timeout=90, what="team-a/web answered by its input").json()["output"][
            "parameters"
        ]
        assert params["applicationSet"] == {"namespace": TENANT, "name": "web", "project": TENANT}
        alone = ask(names=["self"])  # the only "web" the generator sees, yet team-c/web may be the one asking
        assert alone.status_code == 503 and alone.json()["reason"] == "not_placed", alone.text
        message = alone.json()["message"]
        assert "applicationsetcontroller.namespaces in argocd-cmd-params-cm: 'team-*'" in message
        assert "applicationSetNamespace" in message and "generator.applicationNamespaces" in message

        # the upgrade gate: nothing it sees blocks 1.35, but Applications of /^team-/ are unseen
        api.admin.merge_patch(
            "v1", "Secret", "cluster-self", {"metadata": {"annotations": {Annotation.UPGRADE_TO: "1.35"}}}, NAMESPACE
        )
        blocked = wait_until(
            lambda: secret_annotations().get(Annotation.UPGRADE_BLOCKED), timeout=60, what="the gate's blocker"
        )
        assert blocked.startswith("argocd-cmd-params-cm application.namespaces: Applications in '/^team-/'")
        assert secret_annotations()[Annotation.UPGRADE_BLOCKERS] == "1"
    finally:
        generator.sup.stop_all()
        _params(api, dict.fromkeys(PARAMS))
        api.admin.merge_patch(
            "v1", "Secret", "cluster-self", {"metadata": {"annotations": dict.fromkeys(GATE_KEYS)}}, NAMESPACE
        )
        api.admin.delete(API, "ApplicationSet", "web", TENANT)
        api.admin.delete(API, "Application", "web-self", TENANT)
    log = proc.log_path.read_text()
    assert "applicationsetcontroller.namespaces in argocd-cmd-params-cm names namespaces" in log
    assert "application.namespaces in argocd-cmd-params-cm names namespaces" in log
    assert not re.search(r"\b403\b|[Ff]orbidden|denied|ValidatingAdmissionPolicy", log), log[-3000:]


def test_a_hostile_namespace_list_stops_the_start_with_one_line_naming_the_key(
    real_api: RealApi, tmp_path: Path
) -> None:
    """A control character in applicationsetcontroller.namespaces (an escape sequence meant for the log
    reader's terminal): the real generator exits 1 at start-up, its error naming the ConfigMap and key."""
    api = real_api
    fresh_election(api, "node-p")
    _objects(api)
    _params(api, {APPSET_NAMESPACES: "team-a,\x1b]8;;https://evil.example\x07team-b"})
    generator = start_generator(api, SETS, tmp_path, "pod-h")
    try:
        code = wait_until(generator.proc.popen.poll, timeout=60, what="the generator to stop at start-up")
    finally:
        generator.sup.stop_all()
        _params(api, dict.fromkeys(PARAMS))
        api.admin.delete(API, "ApplicationSet", "web", TENANT)
        api.admin.delete(API, "Application", "web-self", TENANT)
    assert code == 1
    errors = [line for line in generator.proc.log_path.read_text().splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: ConfigMap {NAMESPACE}/argocd-cmd-params-cm applicationsetcontroller.namespaces: holds a control "
        "character (a list of namespaces is plain text)"
    ]
    assert "evil.example" not in generator.proc.log_path.read_text()
