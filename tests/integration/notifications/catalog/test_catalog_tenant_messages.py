"""A tenant's Application (Argo CD's applications in any namespace): the catalog's templates name it
`namespace/name`, as the `argocd` CLI does, link to it by namespace, and the receiver's webhook body
carries its namespace and project, which the receiver's routes match on. Argo CD's own engine renders
them (the same keys the chart applies into the tenant's argocd-notifications-cm)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.integration.notifications.catalog.engine import ARGOCD_URL, Evaluator, cases

pytestmark = pytest.mark.upstream


def tenant_app(rel: str, now: dt.datetime) -> dict[str, object]:
    app = next(c for c in cases() if c.rel == rel).app(now)
    app["metadata"]["namespace"] = "team-a"  # type: ignore[index]
    app["spec"]["project"] = "team-a-prod"  # type: ignore[index]
    return app


@pytest.mark.parametrize(
    ("rel", "trigger"),
    [
        ("on-cluster-unreachable/fires-unreachable.json", "on-cluster-unreachable"),
        ("on-drift-unreconciled/fires-window-ended.json", "on-drift-unreconciled"),
    ],
)
def test_a_tenants_application_is_named_with_its_namespace(
    engine: Evaluator, now: dt.datetime, rel: str, trigger: str
) -> None:
    app = tenant_app(rel, now)
    name = app["metadata"]["name"]  # type: ignore[index]
    (notification,) = engine.run(app, trigger).entry(trigger)["rendered"].values()
    body = json.loads(notification["webhook"]["argocd-lifecycle"]["body"])
    assert (body["app"], body["namespace"], body["project"]) == (name, "team-a", "team-a-prod")
    assert notification["slack"]["groupingKey"] == f"argocd-lifecycle/team-a/{name}"
    (attachment,) = json.loads(notification["slack"]["attachments"])
    assert attachment["title_link"] == f"{ARGOCD_URL}/applications/team-a/{name}"
    fields = {f["title"]: f["value"] for f in attachment["fields"]}
    assert (fields["Application"], fields["Project"]) == (f"team-a/{name}", "team-a-prod")
    facts = {f["name"]: f["value"] for f in json.loads(notification["teams"]["facts"])}
    assert facts["Application"] == f"team-a/{name}"
