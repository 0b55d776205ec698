"""The GitOps notifications path: `notifications render --format argo-cd-values` gives the argo-cd chart
everything (the receiver's webhook service, triggers, templates, a default subscription of the fleet),
and Argo CD's own notifications engine (argocd-notify-eval, built against the pinned Argo CD) delivers an
Application of the example ApplicationSet to the receiver through that subscription alone."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from argocd_lifecycle.notifications.catalog.build import build
from tests.conftest import require_tool
from tests.integration.chart.chartkit import one, render
from tests.unit.deploy.generate import NOTIFICATIONS
from tests.unit.docs.blocks import REPO

pytestmark = pytest.mark.upstream

SUBSCRIBE = "notifications.argoproj.io/subscribe."


def configmap(values: dict[str, Any]) -> dict[str, Any]:
    """argocd-notifications-cm as argo-helm's argo-cd chart writes it from these values (its
    templates/argocd-notifications/cm.yaml: notifiers, templates and triggers as keys, subscriptions as YAML)."""
    n = values["notifications"]
    data = {**n["notifiers"], **n["templates"], **n["triggers"], "subscriptions": yaml.safe_dump(n["subscriptions"])}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "argocd-notifications-cm"}, "data": data}


def application_of_the_example(phase: str) -> dict[str, Any]:
    """An Application as the example ApplicationSet makes it, without its subscription annotations."""
    template = yaml.safe_load((REPO / "examples" / "applicationset.yaml").read_text())["spec"]["template"]
    annotations = {k: v for k, v in template["metadata"]["annotations"].items() if not k.startswith(SUBSCRIBE)}
    annotations |= {
        "argocd-lifecycle.io/cluster-phase": phase,
        "argocd-lifecycle.io/cluster-phase-since": "2026-12-02T10:00:00Z",
    }
    spec = {**template["spec"], "destination": {"server": "https://edge-7.example:6443", "namespace": "guestbook"}}
    return {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {
            "name": "guestbook-edge-7",
            "namespace": "argocd",
            "creationTimestamp": "2026-12-01T09:00:00Z",
            "labels": template["metadata"]["labels"],
            "annotations": annotations,
        },
        "spec": spec,
        "status": {"sync": {"status": "Synced"}, "health": {"status": "Healthy"}},
    }


def evaluate(tmp_path: Path, values: dict[str, Any], app: dict[str, Any], trigger: str) -> list[dict[str, Any]]:
    (tmp_path / "cm.yaml").write_text(yaml.safe_dump(configmap(values)))
    (tmp_path / "app.json").write_text(json.dumps(app))
    proc = subprocess.run(
        [
            str(require_tool("argocd-notify-eval")),
            "--configmap",
            str(tmp_path / "cm.yaml"),
            "--app",
            str(tmp_path / "app.json"),
            "--trigger",
            trigger,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def values() -> dict[str, Any]:
    return yaml.safe_load(NOTIFICATIONS.read_text())  # type: ignore[no-any-return]


def test_the_fleet_is_subscribed_to_every_trigger_by_default(tmp_path: Path) -> None:
    (entry,) = evaluate(tmp_path, values(), application_of_the_example("Unreachable"), "on-cluster-unreachable")
    assert entry["triggered"] is True
    service = build().settings.webhook_service
    assert [(d["service"], d["recipient"]) for d in entry["destinations"]] == [(service, "")]


def test_an_application_outside_the_fleet_is_not(tmp_path: Path) -> None:
    app = application_of_the_example("Unreachable")
    app["metadata"]["labels"] = {"app.kubernetes.io/part-of": "guestbook"}
    (entry,) = evaluate(tmp_path, values(), app, "on-cluster-unreachable")
    assert entry["triggered"] is True and entry["destinations"] == []


def test_the_values_name_only_what_the_catalog_has() -> None:
    n = values()["notifications"]
    catalog = build()
    (subscription,) = n["subscriptions"]
    assert subscription["triggers"] == [t.name for t in catalog.triggers]
    assert set(n["notifiers"]) == {f"service.webhook.{catalog.settings.webhook_service}"}
    assert {**n["triggers"], **n["templates"]} == catalog.data()


def test_the_webhook_service_reaches_the_receiver_the_chart_installs() -> None:
    n = values()["notifications"]
    (service,) = n["notifiers"].values()
    url = urlsplit(yaml.safe_load(service)["url"])
    name, namespace, _ = (url.hostname or "").split(".", 2)
    docs = render(values=("all-enabled-values.yaml",), namespace=namespace)
    receiver = one(docs, "Service", name)
    assert url.port in [p["port"] for p in receiver["spec"]["ports"]]
    # the chart's own catalog keys carry the same service, so both install paths agree
    (cm,) = [d for d in docs if d["kind"] == "ConfigMap" and "service.webhook.argocd-lifecycle" in d.get("data", {})]
    assert yaml.safe_load(cm["data"]["service.webhook.argocd-lifecycle"]) == yaml.safe_load(service)
