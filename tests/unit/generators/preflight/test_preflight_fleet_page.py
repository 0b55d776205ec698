"""The fleet page and /api/v1/clusters show which clusters the upgrade gate holds, and why."""

from __future__ import annotations

from datetime import UTC, datetime

from argocd_lifecycle.generators.fleet.view import ClusterState
from argocd_lifecycle.generators.service.fleet_page import FleetPage, cluster_row, fleet_document
from argocd_lifecycle.model import Annotation, Phase

SINCE = datetime(2026, 1, 2, 15, 4, 5, tzinfo=UTC)
SUMMARY = 'argocd/plain: VolumeAttributesClass fast (storage.k8s.io/v1beta1) <b>"x"</b>'


class Fleet:
    def __init__(self, clusters: list[ClusterState]) -> None:
        self._clusters = clusters

    def clusters(self) -> list[ClusterState]:
        return self._clusters

    def synced(self) -> bool:
        return True

    def stale_seconds(self) -> float:
        return 0.0

    def departed(self) -> frozenset[str]:
        return frozenset()


def _cluster(name: str, annotations: dict[str, str]) -> ClusterState:
    return ClusterState(name, f"https://{name}.example.test", f"cluster-{name}", annotations=annotations,
                        phase=Phase.UPGRADING, phase_since=SINCE, upgrade_to="1.37")  # fmt: skip


FLEET = Fleet(
    [
        _cluster(
            "blocked",
            {Annotation.UPGRADE_TO: "1.37", Annotation.UPGRADE_BLOCKERS: "2", Annotation.UPGRADE_BLOCKED: SUMMARY},
        ),
        _cluster("clear", {Annotation.UPGRADE_TO: "1.37", Annotation.UPGRADE_BLOCKERS: "0"}),
        _cluster("deciding", {Annotation.UPGRADE_TO: "1.37"}),
        _cluster("plain", {}),
    ]
)


def test_rows_carry_the_gate() -> None:
    rows = {r["name"]: r for r in fleet_document(FLEET)["clusters"]}
    assert (rows["blocked"]["upgradeTo"], rows["blocked"]["upgradeBlockers"]) == ("1.37", 2)
    assert rows["blocked"]["upgradeBlocked"] == SUMMARY
    assert (rows["clear"]["upgradeBlockers"], rows["clear"]["upgradeBlocked"]) == (0, "")
    assert rows["deciding"]["upgradeBlockers"] is None and rows["plain"]["upgradeTo"] == ""
    assert cluster_row(FLEET.clusters()[3])["upgradeBlockers"] is None


def test_the_page_marks_blocked_clusters_and_escapes_the_summary() -> None:
    html = FleetPage(15).render(FLEET, now=SINCE)
    assert 'id="blocked-count">Upgrade blocked 1</span>' in html
    assert "→ 1.37 blocked (2)" in html and 'class="upgrade-blocked"' in html
    assert "→ 1.37 clear" in html
    assert "&lt;b&gt;&#34;x&#34;&lt;/b&gt;" in html and "<b>" not in html.split("<script>")[0]
    quiet = FleetPage(15).render(Fleet([_cluster("plain", {})]), now=SINCE)
    assert 'id="blocked-count" hidden>' in quiet
