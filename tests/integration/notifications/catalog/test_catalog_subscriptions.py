"""Subscription annotations as the ApplicationSet template writes them, parsed by the notifications
engine's own `pkg/subscriptions` of each Argo CD release (through argocd-notify-eval's destinations)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from argocd_lifecycle.notifications.catalog.build import Catalog
from argocd_lifecycle.notifications.catalog.formats import markdown, subscription_annotations
from tests.argocd_versions import ArgocdRelease
from tests.integration.notifications.catalog.engine import Evaluator, configmap_for_engine

pytestmark = pytest.mark.upstream


def _app(annotations: dict[str, str]) -> dict[str, object]:
    return {"metadata": {"name": "shop", "namespace": "argocd", "annotations": annotations}}


def test_documented_annotations_subscribe_every_trigger_to_the_webhook(engine: Evaluator, catalog: Catalog) -> None:
    block = markdown(catalog).split("## Subscribing", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    documented = yaml.safe_load(block)["spec"]["template"]["metadata"]["annotations"]
    assert documented == subscription_annotations(catalog)
    result = engine.run(_app(documented))
    assert result.rc == 0, result.stderr
    for entry in result.entries:
        assert [(d["service"], d["recipient"]) for d in entry["destinations"]] == [("argocd-lifecycle", "")]
        assert entry["destinations"][0]["stateKey"] == f"{entry['trigger']}:{entry['key']}:argocd-lifecycle:"


def test_slack_channels_and_default_triggers(tmp_path: Path, catalog: Catalog, argocd_release: ArgocdRelease) -> None:
    cm = configmap_for_engine(catalog, {"defaultTriggers": "- on-cluster-unreachable\n- on-cluster-recovered\n"})
    engine = Evaluator(tmp_path, cm, release=argocd_release)
    annotations = {
        "notifications.argoproj.io/subscribe.on-health-degraded-too-long.slack": "ops-alerts; platform",
        "notifications.argoproj.io/subscribe.on-health-recovered.slack": "ops-alerts;platform",
        "notifications.argoproj.io/subscribe.argocd-lifecycle": "",  # no trigger: the ConfigMap's defaultTriggers
    }
    result = engine.run(_app(annotations))
    destinations = {e["trigger"]: [(d["service"], d["recipient"]) for d in e["destinations"]] for e in result.entries}
    assert destinations["on-health-degraded-too-long"] == [("slack", "ops-alerts"), ("slack", "platform")]
    assert destinations["on-health-recovered"] == [("slack", "ops-alerts"), ("slack", "platform")]
    assert destinations["on-cluster-unreachable"] == [("argocd-lifecycle", "")]
    assert destinations["on-cluster-recovered"] == [("argocd-lifecycle", "")]
    assert destinations["on-self-heal"] == []


def test_dotted_names_would_break_subscriptions(
    tmp_path: Path, catalog: Catalog, argocd_release: ArgocdRelease
) -> None:
    """Why no catalog name has a dot: the engine splits the annotation key on '.'."""
    cm = configmap_for_engine(catalog, {"trigger.on.dotted": json.dumps([{"when": "true"}])})
    engine = Evaluator(tmp_path, cm, release=argocd_release)
    result = engine.run(_app({"notifications.argoproj.io/subscribe.on.dotted.argocd-lifecycle": ""}), "on.dotted")
    assert result.entry("on.dotted")["destinations"] == []
    assert all("." not in t.name for t in catalog.triggers)
