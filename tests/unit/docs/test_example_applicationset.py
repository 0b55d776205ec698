"""The one recommended ApplicationSet: examples/applicationset.yaml, shipped in the chart for its install
notes, subscribes every Application it makes to every trigger of the catalog."""

from __future__ import annotations

from typing import Any

import yaml

from argocd_lifecycle.notifications.catalog.build import build
from tests.unit.docs.blocks import REPO

EXAMPLE = REPO / "examples" / "applicationset.yaml"
CHART_COPY = REPO / "charts" / "argocd-lifecycle" / "files" / "applicationset.yaml"
SUBSCRIBE = "notifications.argoproj.io/subscribe."


def example() -> dict[str, Any]:
    return yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_chart_ships_the_example() -> None:
    assert CHART_COPY.read_text(encoding="utf-8") == EXAMPLE.read_text(encoding="utf-8"), (
        f"run: cp {EXAMPLE.relative_to(REPO)} {CHART_COPY.relative_to(REPO)}"
    )


def test_every_catalog_trigger_is_subscribed() -> None:
    catalog = build()
    annotations = example()["spec"]["template"]["metadata"]["annotations"]
    subscribed = {k.removeprefix(SUBSCRIBE): v for k, v in annotations.items() if k.startswith(SUBSCRIBE)}
    service = catalog.settings.webhook_service
    # a webhook subscription's recipient is empty; Argo CD splits the key on '.' into trigger and service
    assert subscribed == {f"{t.name}.{service}": "" for t in catalog.triggers}


def test_the_phase_policy_comes_from_the_template_patch() -> None:
    spec = example()["spec"]
    patch = spec["templatePatch"]
    for cell in ("syncEnabled", "prune", "selfHeal"):
        assert f"{{{{ .lifecycle.{cell} }}}}" in patch
    assert spec["goTemplate"] is True  # templatePatch is goTemplate only
