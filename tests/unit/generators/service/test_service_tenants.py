"""Tenants: two ApplicationSets named ``web`` in team-a and team-b, guarded each against its own
Applications; one the generator cannot place is refused, never answered unguarded."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

from argocd_lifecycle.generators.fleet.applications import ApplicationIndex
from argocd_lifecycle.generators.fleet.appsets import AppSetIndex
from argocd_lifecycle.generators.fleet.baseline import KubeBaseline
from argocd_lifecycle.generators.fleet.namespaces import Namespaces
from argocd_lifecycle.generators.service.app import EXECUTE

from .conftest import ClientFactory
from .fleet_fixture import MemoryFleet, Reported

PROD = {"labelSelector": {"matchLabels": {"env": "prod"}}}


def _appset(name: str, namespace: str, project: str = "") -> dict[str, Any]:
    meta = {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}"}
    return {"metadata": meta, "spec": {"template": {"spec": {"project": project or namespace}}}}


def _application(appset: str, namespace: str, server: str) -> dict[str, Any]:
    owner = {"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet", "name": appset, "uid": "u"}
    meta = {"name": f"{appset}-{server}", "namespace": namespace, "ownerReferences": [owner]}
    return {"metadata": meta, "spec": {"destination": {"server": server}}}


class Tenants:
    """The generator's caches as the list/watches fill them, and Argo CD applying answers into them."""

    def __init__(self, *namespaces: str) -> None:
        watched = Namespaces.parse("argocd", namespaces)
        self.apps = ApplicationIndex(home="argocd", scopes=watched.scopes)
        self.appsets = AppSetIndex(watched)
        self.baseline = KubeBaseline(self.apps, self.appsets)
        for scope in watched.scopes:
            self.apps.listed([], scope)
            self.appsets.listed([], scope)

    def add_appset(self, name: str, namespace: str, project: str = "") -> None:
        self.appsets.upserted(_appset(name, namespace, project))

    def argo_cd_applies(self, appset: str, namespace: str, response: Any) -> None:
        assert response.status_code == 200, response.text
        for p in response.json()["output"]["parameters"]:
            self.apps.upserted(_application(appset, namespace, p["server"]))


def _post(client: TestClient, appset: str = "web", parameters: dict[str, Any] | None = None) -> Any:
    return client.post(EXECUTE, json={"applicationSetName": appset, "input": {"parameters": parameters or {}}})


@pytest.fixture
def tenants() -> Tenants:
    t = Tenants("team-a", "team-b")
    t.add_appset("web", "team-a")
    t.add_appset("web", "team-b")
    t.add_appset("shop", "team-a", project="shop-project")
    return t


def test_an_ambiguous_name_is_503_not_placed_until_the_input_names_its_namespace(
    make_client: ClientFactory, tenants: Tenants
) -> None:
    client = make_client(baseline=tenants.baseline)
    refused = _post(client)
    assert refused.status_code == 503
    assert refused.json()["reason"] == "not_placed"
    assert "ApplicationSets named 'web' exist in 2 namespaces (team-a, team-b)" in refused.json()["message"]
    assert "applicationSetNamespace" in refused.json()["message"]
    placed = _post(client, parameters={"applicationSetNamespace": "team-b"})
    assert placed.status_code == 200
    first = placed.json()["output"]["parameters"][0]
    assert first["applicationSet"] == {"namespace": "team-b", "name": "web", "project": "team-b"}
    assert first["input"] == {"applicationSetNamespace": "team-b"}


def test_a_unique_name_is_placed_and_its_parameters_name_it(make_client: ClientFactory, tenants: Tenants) -> None:
    client = make_client(baseline=tenants.baseline)
    response = _post(client, "shop", {"flatList": True})
    assert response.status_code == 200
    (flat,) = response.json()["output"]["parameters"]
    assert flat["applicationSet"] == {"namespace": "team-a", "name": "shop", "project": "shop-project"}


def test_an_appset_in_no_watched_namespace_is_503_naming_the_chart_value(
    make_client: ClientFactory, tenants: Tenants
) -> None:
    client = make_client(baseline=tenants.baseline)
    for response in (_post(client, "other"), _post(client, "web", {"applicationSetNamespace": "team-z"})):
        assert response.status_code == 503 and response.json()["reason"] == "not_placed"
        assert "generator.applicationNamespaces" in response.json()["message"]


def test_a_mass_drop_in_team_a_is_held_while_team_b_web_is_answered(
    fleet: MemoryFleet, make_client: ClientFactory, tenants: Tenants
) -> None:
    reported = Reported()
    client = make_client(baseline=tenants.baseline, reporter=reported)
    a, b = {**PROD, "applicationSetNamespace": "team-a"}, {"applicationSetNamespace": "team-b"}
    tenants.argo_cd_applies("web", "team-a", _post(client, parameters=a))
    tenants.argo_cd_applies("web", "team-b", _post(client, parameters=b))
    # relabel team-a's clusters away: its answer loses them all; team-b selects every cluster
    for c in fleet.clusters():
        if c.labels.get("env") == "prod":
            fleet.update(c.name, labels={"env": "gone"})
    held = _post(client, parameters=a)
    assert held.status_code == 503 and held.json()["reason"] == "mass_drop"
    assert "ApplicationSet 'team-a/web'" in held.json()["message"]
    assert [h.appset for h in reported.holds] == ["team-a/web"]
    assert _post(client, parameters=b).status_code == 200


def test_two_appsets_of_one_input_get_answers_naming_each(make_client: ClientFactory, tenants: Tenants) -> None:
    """The answer cache is per ApplicationSet: one tenant is never handed the other's answer."""
    client = make_client(baseline=tenants.baseline)
    one = _post(client, parameters={"applicationSetNamespace": "team-a"}).json()
    two = _post(client, parameters={"applicationSetNamespace": "team-b"}).json()
    assert one["output"]["parameters"][0]["applicationSet"]["namespace"] == "team-a"
    assert two["output"]["parameters"][0]["applicationSet"]["namespace"] == "team-b"


@pytest.mark.parametrize(
    "hostile",
    ["Team-A", "team_a", "../argocd", "team-a/web", "team-a\n", "a" * 64, "-a", "tëam", 7, True, ["team-a"],
     {"ns": "team-a"}, "*"],
)  # fmt: skip
def test_a_hostile_namespace_parameter_is_400_and_never_placed(
    make_client: ClientFactory, tenants: Tenants, hostile: Any
) -> None:
    client = make_client(baseline=tenants.baseline)
    response = _post(client, parameters={"applicationSetNamespace": hostile})
    assert response.status_code == 400, response.text
    assert response.json()["message"].startswith("input.parameters.applicationSetNamespace: ")
    assert len(response.json()["message"]) < 300


@pytest.mark.parametrize("hostile", ["team-a/web", "../web", "Web", "web\n", "", "w" * 254, "web app", "wéb"])
def test_a_hostile_appset_name_is_400(make_client: ClientFactory, tenants: Tenants, hostile: str) -> None:
    response = _post(make_client(baseline=tenants.baseline), hostile)
    assert response.status_code == 400, response.text
    assert response.json()["message"].startswith("applicationSetName: ")


def test_nothing_is_answered_until_every_namespace_was_listed(make_client: ClientFactory) -> None:
    watched = Namespaces.parse("argocd", ["team-a"])
    apps, appsets = ApplicationIndex(scopes=watched.scopes), AppSetIndex(watched)
    apps.listed([], "argocd")
    appsets.listed([_appset("web", "argocd")], "argocd")
    apps.listed([], "team-a")
    client = make_client(baseline=KubeBaseline(apps, appsets))
    response = _post(client)
    assert response.status_code == 503 and "have not been listed yet" in response.json()["message"]
    appsets.listed([], "team-a")
    assert _post(client).status_code == 200
