"""A short seeded run of the chaos soak (``make soak`` runs the long ones): every event kind on the
session rig's clusters, with the soak's own ApplicationSet and a tenant's (team-a/fleet) over them, no
wrongful deletion of either, at most one down and one recovery message per outage."""

from __future__ import annotations

import os
import sys

import pytest

from tests.e2e.soak import Soak
from tests.harness import paths
from tests.harness.fleet import Rig
from tests.harness.loop import record

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

SEED = int(os.environ.get("ARGOCD_LIFECYCLE_SOAK_SEED", "7"))
EVENTS = 40


def test_a_short_soak_deletes_nothing_wrongly_and_tells_each_outage_once(rig: Rig, timings: dict[str, float]) -> None:
    report = Soak(rig, SEED, EVENTS).run()
    text = "\n".join(report.lines())
    (paths.ARTIFACTS / "soak-report.txt").write_text(text + "\n")
    print(text, file=sys.stderr)
    record(timings, "short_soak_s", report.seconds)
    from tests.e2e.soak import WEIGHTS

    assert sum(n for kind, n in report.counts.items() if kind in WEIGHTS) == EVENTS
    assert all(report.counts[kind] for kind in WEIGHTS), report.counts  # every listed kind at least once
    assert report.wrongful == [], text
    # the tenant's ApplicationSet lived through the same events: its Applications went only when allowed
    # (at least the explicit departures), its held answers reached team-a's destination alone
    assert report.tenant_deletions["explicit departure"] >= 1 and report.held_tenant_elsewhere == 0, text
    assert report.episodes is not None and report.episodes.max_down <= 1 and report.episodes.max_recovered <= 1, text
