"""The inventory of cluster Secrets: last good version kept, label removal is a delete, sync state."""

from __future__ import annotations

import json

import pytest

from argocd_lifecycle.generators.fleet import inventory
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


def _bad_ca(name: str = "c1", version: str = "1") -> dict:
    config = json.dumps({"tlsClientConfig": {"caData": "\u00e9"}})
    return secret(name, string_data={"name": name, "server": f"https://{name}", "config": config},
                  resourceVersion=version)  # fmt: skip


def test_one_secret_with_non_ascii_base64_does_not_stop_the_listing() -> None:
    """Issue 24, finding 2: on 6729d94 the ValueError ended replace_all before the inventory was listed,
    so every ApplicationSet got 503 until a relist, even after the Secret was deleted."""
    inv = Inventory("argocd")
    seen: list[tuple[ChangeKind, str]] = []
    inv.subscribe(lambda ch: seen.append((ch.kind, ch.secret_name)))
    good = secret("c2", string_data={"name": "b", "server": "https://b"}, resourceVersion="2")
    inv.replace_all([(_bad_ca(), ""), (good, "")])
    assert inv.synced() and list(inv.secrets) == ["cluster-c2"]
    assert inv.invalid == {"cluster-c1": "Secret argocd/cluster-c1: config.tlsClientConfig.caData is not base64"}
    assert seen == [(ChangeKind.INVALID, "cluster-c1"), (ChangeKind.UPSERT, "cluster-c2")]
    inv.delete("cluster-c1")
    assert inv.invalid == {} and inv.synced()


def test_a_parser_bug_is_that_secrets_problem_and_never_quotes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = inventory.parse_secret

    def parse(obj: dict, *, where: str = "") -> object:
        if obj["metadata"]["name"] == "cluster-c1":
            raise TypeError("quoting s3cr3t")
        return real(obj, where=where)

    monkeypatch.setattr(inventory, "parse_secret", parse)
    inv = Inventory("argocd")
    good = secret("c2", string_data={"name": "b", "server": "https://b"}, resourceVersion="2")
    inv.replace_all([(secret(string_data={"name": "a", "server": "https://a"}), ""), (good, "")])
    assert inv.synced() and list(inv.secrets) == ["cluster-c2"]
    problem = inv.invalid["cluster-c1"]
    assert problem.startswith("Secret argocd/cluster-c1: cannot be read (TypeError at ") and "s3cr3t" not in problem


def test_a_listener_that_fails_stops_neither_the_listing_nor_the_other_listeners(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inv = Inventory("argocd")
    seen: list[str] = []

    def failing(change: object) -> None:
        raise RuntimeError("s3cr3t")

    inv.subscribe(failing)
    inv.subscribe(lambda ch: seen.append(ch.secret_name))
    inv.replace_all([(secret(name, string_data={"name": name, "server": f"https://{name}"}), "") for name in "ab"])
    assert inv.synced() and seen == ["cluster-a", "cluster-b"]
    assert "RuntimeError at test_fleet_inventory.py" in caplog.text and "s3cr3t" not in caplog.text


def test_objects_of_the_wrong_shape_are_ignored_not_raised() -> None:
    inv = Inventory("argocd")
    inv.replace_all([({"metadata": ["x"]}, ""), ({"kind": "Secret"}, "")])  # type: ignore[list-item]
    assert inv.synced() and inv.secrets == {} and inv.invalid == {}
