"""The inventory of cluster Secrets: last good version kept, label removal is a delete, sync state."""

from __future__ import annotations

from argocd_lifecycle.generators.fleet.inventory import ChangeKind, Inventory
from tests.unit.core.cluster_secret_manifests import secret


def test_inventory_keeps_last_good_version_of_a_secret_that_turns_bad() -> None:
    inv = Inventory("argocd")
    seen: list[tuple[ChangeKind, str]] = []
    inv.subscribe(lambda ch: seen.append((ch.kind, ch.secret_name)))
    good = secret(string_data={"name": "a", "server": "https://a"}, resourceVersion="1")
    bad = secret(string_data={"name": "a"}, resourceVersion="2")
    other = secret("c2", string_data={"name": "b", "server": "https://b"}, resourceVersion="3")
    inv.replace_all([(good, ""), (other, "")])
    inv.apply(bad)
    assert inv.secrets["cluster-c1"].server == "https://a" and "data.server is missing" in inv.invalid["cluster-c1"]
    inv.apply(bad)  # same resourceVersion: nothing new to report
    assert seen == [
        (ChangeKind.UPSERT, "cluster-c1"),
        (ChangeKind.UPSERT, "cluster-c2"),
        (ChangeKind.INVALID, "cluster-c1"),
    ]
    unlabelled = secret(string_data={"name": "a", "server": "https://a"}, resourceVersion="4")
    unlabelled["metadata"]["labels"] = {}
    inv.apply(unlabelled)  # the label was removed: no longer a cluster
    assert "cluster-c1" not in inv.secrets and seen[-1] == (ChangeKind.DELETE, "cluster-c1")
    inv.replace_all([])
    assert inv.secrets == {} and inv.synced()


def test_inventory_sync_state() -> None:
    inv = Inventory()
    assert not inv.synced() and inv.stale_seconds() == 0
    inv.mark_broken()
    assert inv.stale_seconds() > 0
    inv.replace_all([])
    assert inv.synced() and inv.stale_seconds() == 0
