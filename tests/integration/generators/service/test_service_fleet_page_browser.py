"""The fleet page in headless Chromium (Debian's chromium driven by Playwright): it loads, lists the
clusters of the fixture inventory, sorts by a column, refreshes from /api/v1/clusters and /api/v1/rollouts;
screenshots kept."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from argocd_lifecycle.model import Phase
from tests.conftest import REPO
from tests.unit.generators.service.fleet_fixture import MemoryFleet, cluster

from .conftest import ROLLED_FROM, ROLLOUT_APPSET, TOKEN, LiveService

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = REPO / "test-artifacts"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (tools/system-packages.sh)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    yield page
    context.close()


def _column(page: Page, index: int) -> list[str]:
    result: Any = page.eval_on_selector_all("#fleet tbody tr", f"rows => rows.map(r => r.cells[{index}].dataset.sort)")
    return list(result)


def _vary_times(fleet: MemoryFleet) -> None:
    """Times relative to now, so the page shows real durations and each certificate state."""
    now = datetime.now(UTC)
    for i, (name, cert_days) in enumerate(
        [("edge-7", 200), ("new-1", 90), ("old-1", -3), ("prod-eu-1", 365), ("prod-us-1", 12), ("staging-1", 45)]
    ):
        fleet.update(
            name,
            phase_since=now - timedelta(minutes=7 * 13**i),
            certificate_expires_at=now + timedelta(days=cert_days, hours=1),
        )


def test_fleet_page_lists_sorts_and_refreshes(live_service: LiveService, page: Page) -> None:
    _vary_times(live_service.fleet)
    response = page.goto(live_service.url + "/")
    assert response is not None and response.status == 200
    assert page.title() == "Fleet · argocd-lifecycle"
    names = _column(page, 0)
    assert names == ["edge-7", "new-1", "old-1", "prod-eu-1", "prod-us-1", "staging-1"]
    # phases are colour-coded: the badge's computed background differs per phase
    colours = page.eval_on_selector_all(
        "#fleet tbody .phase", "els => els.map(e => [e.textContent, getComputedStyle(e).backgroundColor])"
    )
    by_phase = dict(colours)
    assert len(set(by_phase.values())) == len(Phase)
    assert page.inner_text('tr[data-cluster="prod-us-1"] td:nth-child(6)') == "3/5"
    assert "2 of 5 nodes NotReady" in page.inner_text('tr[data-cluster="prod-us-1"]')
    assert page.get_attribute('tr[data-cluster="prod-us-1"] td:nth-child(7)', "class") == "cert-warn"
    assert page.get_attribute('tr[data-cluster="old-1"] td:nth-child(7)', "class") == "cert-bad"
    assert page.inner_text('tr[data-cluster="edge-7"] td:nth-child(3)') == "7m"
    assert page.inner_text('tr[data-cluster="new-1"] td:nth-child(3)') == "1h 31m"

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "fleet-page.png"), full_page=True)

    page.click('th[data-key="phase"]')  # sort by phase, ascending
    assert _column(page, 1) == sorted(_column(page, 1))
    assert page.get_attribute('th[data-key="phase"]', "aria-sort") == "ascending"
    page.click('th[data-key="phase"]')
    assert _column(page, 1) == sorted(_column(page, 1), reverse=True)

    live_service.fleet.put(cluster("zz-new-9", Phase.READY))
    live_service.fleet.update("edge-7", phase=Phase.READY, message="")
    page.evaluate("window.fleetRefresh()")
    page.wait_for_selector('tr[data-cluster="zz-new-9"]')
    assert page.inner_text('tr[data-cluster="edge-7"] .phase') == "Ready"
    assert page.inner_text('[data-phase-count="Ready"]') == "Ready 3"
    assert page.inner_text('[data-phase-count="Unreachable"]') == "Unreachable 0"
    assert len(_column(page, 0)) == 7


def _ask_rollout(service: LiveService) -> int:
    """What Argo CD's ApplicationSet controller sends for the rollout's ApplicationSet: the clusters answered."""
    body = {
        "applicationSetName": ROLLOUT_APPSET,
        "input": {
            "parameters": {
                "rollout": {
                    "revision": "v2.0.0",
                    "waves": [{"name": "eu", "labelSelector": {"matchLabels": {"region": "eu"}}}, {"name": "rest"}],
                }
            }
        },
    }
    request = urllib.request.Request(
        service.url + "/api/v1/getparams.execute",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
        return len(json.loads(response.read())["output"]["parameters"])


def test_the_rollouts_table_fills_in_when_the_generator_plans_one(live_service: LiveService, page: Page) -> None:
    page.goto(live_service.url + "/")
    assert page.is_visible("#rollouts-none") and page.is_hidden("#rollouts")
    answered = _ask_rollout(live_service)  # the keeper plans (and, leading, keeps) the rollout: the page shows it
    page.evaluate("window.fleetRefresh()")
    page.wait_for_selector(f'tr[data-rollout="{ROLLOUT_APPSET}"]')
    assert page.is_hidden("#rollouts-none")
    cells = page.eval_on_selector_all(f'tr[data-rollout="{ROLLOUT_APPSET}"] td', "tds => tds.map(t => t.textContent)")
    assert cells[:4] == [ROLLOUT_APPSET, f"v2.0.0 from {ROLLED_FROM}", "1/2 eu", "Rolling"]
    assert cells[4] == f"0/{answered}"  # the eu clusters were given v2.0.0, none Synced and Healthy at it yet
    # the server renders the same row the script builds
    page.reload()
    served = page.eval_on_selector_all(f'tr[data-rollout="{ROLLOUT_APPSET}"] td', "tds => tds.map(t => t.textContent)")
    assert [c.strip() for c in served] == [c.strip() for c in cells]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "fleet-page-rollouts.png"), full_page=True)
