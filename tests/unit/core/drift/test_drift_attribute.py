"""Attribution of one live object: managedFields entries of several managers, Apply and Update,
subresources, the last-applied comparison, Secrets never read, bounds."""

from __future__ import annotations

import copy
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.drift.attribute import MAX_VALUE, ObjectRef, attribute, value_text
from argocd_lifecycle.drift.managed import MAX_ENTRIES, read_managed

FIXTURES = Path(__file__).parents[3] / "fixtures" / "drift"
SYNCED = datetime(2026, 1, 2, 10, 30, 1, tzinfo=UTC)
DEPLOYMENT = ObjectRef("apps", "Deployment", "shop", "web")
SECRET = ObjectRef("", "Secret", "shop", "web-db")


def _objects() -> dict[str, dict[str, Any]]:
    items = json.loads((FIXTURES / "objects.json").read_text())["items"]
    return {item["metadata"]["name"] + "/" + item["kind"]: item for item in items}


def _deployment() -> dict[str, Any]:
    return copy.deepcopy(_objects()["web/Deployment"])


def test_managers_operations_and_subresources_are_read() -> None:
    entries = read_managed(_deployment())
    assert [(e.manager, e.operation, e.subresource) for e in entries] == [
        ("argocd-controller", "Update", ""),
        ("kubectl-edit", "Update", ""),
        ("kubectl", "Update", "scale"),
        ("kube-controller-manager", "Update", "status"),
        ("kube-controller-manager", "Update", ""),
        ("hpa-tuner", "Apply", ""),
    ]
    assert entries[1].time == datetime(2026, 1, 2, 10, 32, 5, tzinfo=UTC)


def test_the_kubectl_edit_and_the_scale_are_attributed_with_both_values() -> None:
    drift = attribute(_deployment(), DEPLOYMENT, SYNCED)
    assert [c.line() for c in drift.changes] == [
        'spec.template.spec.containers[name=web].env[name=DEBUG_SQL] (not applied) -> {"name":"DEBUG_SQL",'
        '"value":"true"} by kubectl-edit, Update, 10:32:05Z',
        'spec.template.spec.containers[name=web].env[name=LOG_LEVEL].value "info" -> "debug" by kubectl-edit, '
        "Update, 10:32:05Z",
        'spec.template.spec.containers[name=web].resources.limits.memory "256Mi" -> "512Mi" by kubectl-edit, '
        "Update, 10:32:05Z",
        "spec.replicas 3 -> 5 by kubectl, Update /scale, time not recorded",
    ]
    assert drift.unattributed == "" and drift.more == 0 and drift.note == ""
    scale = drift.changes[-1]
    assert (scale.manager, scale.subresource, scale.time, scale.live, scale.applied) == (
        "kubectl",
        "scale",
        "",
        "5",
        "3",
    )


def test_argocd_status_bookkeeping_and_changes_before_the_sync_do_not_count() -> None:
    managers = {c.manager for c in attribute(_deployment(), DEPLOYMENT, SYNCED).changes}
    # argocd-controller is Argo CD; kube-controller-manager wrote status and the revision annotation;
    # hpa-tuner's Apply is older than the sync
    assert managers == {"kubectl-edit", "kubectl"}


def test_a_change_in_the_second_the_sync_finished_counts() -> None:
    # managedFields and finishedAt keep whole seconds: an edit right after the sync shares its second
    same_second = datetime(2026, 1, 2, 10, 32, 5, tzinfo=UTC)
    assert {c.manager for c in attribute(_deployment(), DEPLOYMENT, same_second).changes} == {"kubectl-edit", "kubectl"}
    later = datetime(2026, 1, 2, 10, 32, 6, tzinfo=UTC)
    assert {c.manager for c in attribute(_deployment(), DEPLOYMENT, later).changes} == {"kubectl"}  # no time: value


def test_an_apply_after_the_sync_counts() -> None:
    obj = _deployment()
    obj["metadata"]["managedFields"][5]["time"] = "2026-01-02T11:00:00Z"
    (change,) = [c for c in attribute(obj, DEPLOYMENT, SYNCED).changes if c.manager == "hpa-tuner"]
    assert change.line() == "spec.minReadySeconds (not applied) -> 5 by hpa-tuner, Apply, 11:00:00Z"


def test_without_a_sync_time_every_other_manager_counts() -> None:
    managers = {c.manager for c in attribute(_deployment(), DEPLOYMENT, None).changes}
    assert managers == {"kubectl-edit", "kubectl", "hpa-tuner"}


def test_an_entry_without_time_counts_only_where_the_value_moved_from_what_argocd_applied() -> None:
    # the API server records no time for the scale subresource (the fixture is as it writes it)
    obj = _deployment()
    assert "time" not in obj["metadata"]["managedFields"][2]
    (scale,) = [c for c in attribute(obj, DEPLOYMENT, SYNCED).changes if c.subresource == "scale"]
    assert (scale.time, scale.applied, scale.live) == ("", "3", "5")
    obj["spec"]["replicas"] = 3  # scaled back to what Argo CD applied: nothing to attribute
    assert [c for c in attribute(obj, DEPLOYMENT, SYNCED).changes if c.subresource == "scale"] == []
    obj["spec"]["replicas"] = 5
    del obj["metadata"]["managedFields"][1]["time"]  # no time and no value known to differ: not guessed
    del obj["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    assert attribute(obj, DEPLOYMENT, SYNCED).changes == ()


def test_without_last_applied_the_applied_value_is_unknown() -> None:
    obj = _deployment()
    del obj["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"]
    changes = attribute(obj, DEPLOYMENT, SYNCED).changes
    assert {c.applied_state for c in changes} == {"unknown"}
    assert changes[-1].line() == (
        'spec.template.spec.containers[name=web].resources.limits.memory -> "512Mi" by kubectl-edit, Update, 10:32:05Z'
    )


def test_a_last_applied_rewritten_by_someone_else_is_not_argocds() -> None:
    obj = _deployment()
    obj["metadata"]["managedFields"].append(
        {
            "manager": "kubectl-client-side-apply",
            "operation": "Update",
            "time": "2026-01-02T10:40:00Z",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:metadata": {"f:annotations": {"f:kubectl.kubernetes.io/last-applied-configuration": {}}}},
        }
    )
    drift = attribute(obj, DEPLOYMENT, SYNCED)
    assert "rewritten after the sync" in drift.note
    assert {c.applied_state for c in drift.changes} == {"unknown"}
    last = drift.changes[-1]
    assert last.live == "(a last-applied configuration)"


def test_unreadable_last_applied_is_unknown_not_an_error() -> None:
    obj = _deployment()
    obj["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] = "{not json"
    assert {c.applied_state for c in attribute(obj, DEPLOYMENT, SYNCED).changes} == {"unknown"}


def test_an_object_without_managed_fields_is_not_attributed() -> None:
    drift = attribute(_objects()["web-config/ConfigMap"], ObjectRef("", "ConfigMap", "shop", "web-config"), SYNCED)
    assert drift.changes == ()
    assert drift.unattributed == "the object has no managedFields"


@pytest.mark.parametrize(
    ("managed", "problem"),
    [
        ("x", "managedFields is not a list"),
        (["x"], r"managedFields\[0\]: not an object"),
        ([{"manager": 5, "fieldsV1": {}}], "manager is not a string"),
        ([{"manager": "a\nb", "fieldsV1": {}}], "not printable"),
        ([{"fieldsType": "FieldsV2"}], "fieldsType"),
        ([{"manager": "m", "fieldsV1": {"q:1": {}}}], r"managedFields\[0\]: fieldsV1: unknown key"),
        ([{"manager": "m", "fieldsV1": {}}] * (MAX_ENTRIES + 1), f"more than {MAX_ENTRIES}"),
    ],
)
def test_hostile_managed_fields_say_why_not_attributed(managed: Any, problem: str) -> None:
    obj = {"metadata": {"managedFields": managed}}
    drift = attribute(obj, DEPLOYMENT, SYNCED)
    assert drift.changes == ()
    assert drift.unattributed.startswith("managedFields unreadable")
    assert re.search(problem, drift.unattributed)


def test_a_secret_names_fields_and_reads_no_value() -> None:
    secret = _objects()["web-db/Secret"]
    drift = attribute(secret, SECRET, SYNCED)
    (change,) = drift.changes
    assert change.line() == "data.password changed (Secret: value not read) by kubectl-edit, Update, 10:34:12Z"
    assert (change.live, change.applied, change.applied_state) == (None, None, "hidden")
    text = repr(drift)
    for value in ("bGl2ZS1zZWNyZXQtaW4tY2x1c3Rlcg==", "c3VwZXItc2VjcmV0LWluLWdpdA=="):
        assert value not in text


def test_a_secret_is_never_indexed_past_its_metadata() -> None:
    class Untouchable(dict[str, Any]):
        def __getitem__(self, key: str) -> Any:
            raise AssertionError(f"read {key}")

        def get(self, key: str, default: Any = None) -> Any:
            raise AssertionError(f"read {key}")

    secret = {**_objects()["web-db/Secret"], "data": Untouchable(), "stringData": Untouchable()}
    assert len(attribute(secret, SECRET, SYNCED).changes) == 1


def test_changes_per_object_are_bounded() -> None:
    obj = _deployment()
    obj["metadata"]["managedFields"][1]["fieldsV1"] = {"f:data": {f"f:k{i:03}": {} for i in range(60)}}
    drift = attribute(obj, DEPLOYMENT, SYNCED, max_changes=10)
    assert len(drift.changes) == 10
    assert drift.more == 51


def test_values_are_cut_and_masked() -> None:
    assert len(value_text("x" * 500)) == MAX_VALUE
    assert value_text("x" * 500).endswith("...")
    assert "hunter2" not in value_text("password=hunter2")
    assert value_text({"b": 1, "a": [True, None]}) == '{"a":[true,null],"b":1}'
