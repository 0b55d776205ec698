"""Tenants, with the real generator started with the chart's arguments for generator.applicationNamespaces,
as its ServiceAccount under the chart's Roles and admission policy on a real kube-apiserver: team-a and
team-b each have an ApplicationSet ``web``; the request naming ``web`` is refused until its input names
the namespace; then each is judged against its own Applications, team-a's mass drop held (the Event and
the held-since claim on team-a/web) while team-b is answered; the refresh reaches the tenants'
ApplicationSets; nothing the generator does is refused."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from argocd_lifecycle.model import Annotation
from tests.harness.procs import wait_until
from tests.integration.chart.chartkit import render
from tests.integration.chart.realapi import RealApi
from tests.integration.chart.tenantkit import API, apply_web, fresh_election, start_generator

pytestmark = pytest.mark.upstream

TENANTS = ("team-a", "team-b")
SETS = ("generator.applicationNamespaces={team-a,team-b}",)
HELD_SINCE = "argocd-lifecycle.io/held-since"


def _objects(api: RealApi) -> None:
    wanted = {"Role", "RoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"}
    for tenant in TENANTS:
        api.admin.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": tenant}})
    api.apply_all([d for d in render(sets=SETS) if d["kind"] in wanted])
    api.apply_cluster_self()
    for tenant in TENANTS:
        apply_web(api, tenant)


def test_two_tenants_web_are_placed_by_their_input_and_guarded_apart(real_api: RealApi, tmp_path: Path) -> None:
    api = real_api
    fresh_election(api, "node-t")
    _objects(api)
    generator = start_generator(api, SETS, tmp_path, "pod-t")
    proc, ask = generator.proc, generator.ask

    def annotations(tenant: str) -> dict[str, str]:
        appset = api.admin.get(API, "ApplicationSet", "web", tenant) or {}
        return dict(appset.get("metadata", {}).get("annotations") or {})

    try:

        def answered() -> httpx.Response | None:
            proc.check_alive()
            try:
                response = ask(applicationSetNamespace="team-b", names=["self"])
            except httpx.TransportError:
                return None
            return response if response.status_code == 200 and response.json()["output"]["parameters"] else None

        team_b = wait_until(answered, timeout=90, what="team-b/web answered with the Ready cluster")
        (params,) = team_b.json()["output"]["parameters"]
        assert params["applicationSet"] == {"namespace": "team-b", "name": "web", "project": "team-b"}
        ambiguous = ask()
        assert ambiguous.status_code == 503 and ambiguous.json()["reason"] == "not_placed", ambiguous.text
        assert "exist in 2 namespaces (team-a, team-b)" in ambiguous.json()["message"]

        def held() -> httpx.Response | None:
            response = ask(applicationSetNamespace="team-a", names=["nobody"])
            return response if response.json().get("reason") == "mass_drop" else None

        message = wait_until(held, timeout=60, what="team-a/web held").json()["message"]
        assert "ApplicationSet 'team-a/web'" in message and "1 of the 1 clusters" in message
        wait_until(lambda: annotations("team-a").get(HELD_SINCE), timeout=30, what="the held-since claim on team-a/web")

        def event() -> bool:
            events = api.admin.list("v1", "Event", "team-a")
            return any(e["reason"] == "MassDropHeld" and e["involvedObject"]["name"] == "web" for e in events)

        wait_until(event, timeout=30, what="the MassDropHeld Event in team-a")
        assert not annotations("team-b").get(HELD_SINCE)
        assert ask(applicationSetNamespace="team-b", names=["self"]).status_code == 200
        # the ready transition asked every watched ApplicationSet using the plugin ConfigMap to refresh
        for tenant in TENANTS:
            assert annotations(tenant).get(Annotation.APPSET_REFRESH) == "true", tenant
    finally:
        generator.sup.stop_all()
        for tenant in TENANTS:
            api.admin.delete(API, "ApplicationSet", "web", tenant)
            api.admin.delete(API, "Application", "web-self", tenant)
    log = proc.log_path.read_text()
    assert not re.search(r"\b403\b|[Ff]orbidden|denied|ValidatingAdmissionPolicy", log), log[-3000:]
