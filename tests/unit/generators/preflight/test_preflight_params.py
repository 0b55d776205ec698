"""The upgrade gate's results reach ApplicationSets as parameters, only while upgrade-to is set."""

from __future__ import annotations

from argocd_lifecycle.generators.fleet.view import ClusterState
from argocd_lifecycle.generators.service.params import cluster_params
from argocd_lifecycle.generators.service.policy import PolicyTable
from argocd_lifecycle.model import Annotation, Phase

BLOCKED = {
    Annotation.UPGRADE_TO: "1.37",
    Annotation.UPGRADE_BLOCKERS: "2",
    Annotation.UPGRADE_BLOCKED: "argocd/plain: VolumeAttributesClass fast (storage.k8s.io/v1beta1); and 1 more",
    Annotation.UPGRADE_BLOCKED_SINCE: "2026-01-02T15:04:05Z",
}


def _gate(annotations: dict[str, str]) -> dict[str, str]:
    state = ClusterState("prod", "https://prod.example.test", "cluster-prod", annotations=annotations,
                         phase=Phase.UPGRADING, upgrade_to="1.37")  # fmt: skip
    k = cluster_params(state, PolicyTable.default())["kubernetes"]
    return {key: str(value) for key, value in k.items() if key.startswith("upgrade")}


def test_blocked_clear_and_not_gated() -> None:
    assert _gate(BLOCKED) == {
        "upgradeTo": "1.37",
        "upgradeBlockers": "2",
        "upgradeClear": "false",
        "upgradeBlocked": BLOCKED[Annotation.UPGRADE_BLOCKED],
        "upgradeBlockedSince": "2026-01-02T15:04:05Z",
    }
    clear = {Annotation.UPGRADE_TO: "1.37", Annotation.UPGRADE_BLOCKERS: "0"}
    assert _gate(clear) | {"upgradeTo": ""} == {
        "upgradeTo": "", "upgradeBlockers": "0", "upgradeClear": "true", "upgradeBlocked": "", "upgradeBlockedSince": ""
    }  # fmt: skip
    # not decided yet, or upgrade-to removed while the annotations linger: nothing claimed
    lingering = {k: v for k, v in BLOCKED.items() if k != Annotation.UPGRADE_TO}
    for given in ({Annotation.UPGRADE_TO: "1.37"}, lingering, {**BLOCKED, Annotation.UPGRADE_BLOCKERS: "many"}):
        gate = _gate(given)
        assert (gate["upgradeBlockers"], gate["upgradeClear"], gate["upgradeBlocked"]) == ("", "", "")
