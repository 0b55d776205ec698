"""The Rollout lane: the waves of the ApplicationSet that owns the Application (its ownerReferences), from
files and live, in every output; another ApplicationSet's rollout and Argo CD's own Events of the
ApplicationSet stay out; what cannot be told is a note."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from argocd_lifecycle.notifications.timeline import render_json, render_text
from argocd_lifecycle.notifications.timeline.application import read_application
from argocd_lifecycle.notifications.timeline.build import Request, build
from argocd_lifecycle.notifications.timeline.files import gather, read_files
from argocd_lifecycle.notifications.timeline.model import Lane, ObjectRef, Timeline, TimelineInputError

from .conftest import FIXTURES
from .test_timeline_live import FakeAPI, items
from .test_timeline_render_svg import marks

ROLLOUT = FIXTURES / "rollout"
APP = "guestbook-canary"
APPSET = ObjectRef("ApplicationSet", "guestbook-rollout", "argocd", "argoproj.io/v1alpha1")
WAVES = [
    ("RolloutWaveStarted", "rollout of v2.3.0: wave canary started"),
    ("RolloutWaveBaked", "rollout of v2.3.0: wave canary baked (1 clusters)"),
    ("RolloutWaveStarted", "rollout of v2.3.0: wave eu started"),
    ("RolloutPaused", "rollout of v2.3.0 paused at wave eu: guestbook-eu-2 Degraded (Deployment guestbook-ui: "
                      "0/3 replicas available)"),
    ("RolloutResumed", "rollout of v2.3.0 resumed at wave eu"),
    ("RolloutWaveBaked", "rollout of v2.3.0: wave eu baked (2 clusters)"),
    ("RolloutWaveStarted", "rollout of v2.3.0: wave rest started"),
    ("RolloutWaveBaked", "rollout of v2.3.0: wave rest baked (5 clusters)"),
    ("RolloutFinished", "rollout of v2.3.0 finished: 8 clusters run it"),
]  # fmt: skip


def files() -> list[Path]:
    return sorted(p for p in ROLLOUT.glob("*.json") if not p.name.startswith("expected"))


def story(paths: list[Path] | None = None, *, include_resources: bool = True) -> Timeline:
    request = Request(app=APP, namespace="argocd", include_resources=include_resources)
    return build(request, gather(read_files(paths or files()), request))


def lane(timeline: Timeline) -> list[tuple[str, str]]:
    return [(e.reason, e.message) for e in timeline.lane_entries(Lane.ROLLOUT)]


def test_the_waves_of_the_owning_applicationset_are_the_rollout_lane() -> None:
    timeline = story()
    assert lane(timeline) == WAVES
    assert {e.object for e in timeline.lane_entries(Lane.ROLLOUT)} == {APPSET}
    paused = next(e for e in timeline.lane_entries(Lane.ROLLOUT) if e.reason == "RolloutPaused")
    assert paused.is_warning
    # the canary's own deployment of v2.3.0 sits between its wave's start and its bake
    deployed = next(e for e in timeline.entries if e.source == "status.history" and "v2.3.0" in e.message)
    started, baked = timeline.lane_entries(Lane.ROLLOUT)[:2]
    assert started.time < deployed.time < baked.time
    assert timeline.notes == ()


def test_another_applicationsets_rollout_and_argo_cds_own_events_stay_out() -> None:
    timeline = story()
    assert all("v9.0.0" not in e.message for e in timeline.entries)
    assert all(e.message != "Updated ApplicationSet spec" for e in timeline.entries)


def test_the_json_is_the_recorded_document_and_valid() -> None:
    """A change shows up here; regenerate with the command in docs/guide/timeline.md."""
    doc = render_json.document(story())
    assert json.loads(render_json.render(story())) == json.loads((ROLLOUT / "expected-timeline.json").read_text())
    validator = Draft202012Validator(render_json.schema(), format_checker=Draft202012Validator.FORMAT_CHECKER)
    assert sorted(validator.iter_errors(doc), key=str) == []
    assert doc["lanes"][-1] == "Rollout"
    assert [e["reason"] for e in doc["entries"] if e["lane"] == "Rollout"] == [r for r, _ in WAVES]


def test_the_table_and_the_chart_show_the_lane() -> None:
    from datetime import UTC

    from argocd_lifecycle.notifications.timeline import render_svg

    table = render_text.table(story(), UTC)
    assert sum(1 for line in table.splitlines() if "  Rollout  " in line) == len(WAVES)
    assert "rollout of v2.3.0 paused at wave eu" in render_text.markdown(story(), UTC)
    assert marks(render_svg.render(story(), UTC))["Rollout"] == len(WAVES)


def _app(**metadata: Any) -> dict[str, Any]:
    app = json.loads((ROLLOUT / "app.json").read_text())
    app["metadata"].update(metadata)
    return app


def _with_app(tmp_path: Path, app: dict[str, Any]) -> list[Path]:
    path = tmp_path / "app.json"
    path.write_text(json.dumps(app))
    return [path, ROLLOUT / "events-argocd.json"]


def test_an_application_no_applicationset_owns_has_no_rollout_lane(tmp_path: Path) -> None:
    timeline = story(_with_app(tmp_path, _app(ownerReferences=[])))
    assert lane(timeline) == [] and timeline.notes == ()


def test_the_owner_is_the_controlling_applicationset_of_argo_cds_group(tmp_path: Path) -> None:
    owners = [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "guestbook-rollout", "uid": "1"},
        {"apiVersion": "example.com/v1", "kind": "ApplicationSet", "name": "guestbook-rollout", "uid": "2"},
        {"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet", "name": "payments-rollout", "uid": "3"},
        {"apiVersion": "argoproj.io/v1alpha1", "kind": "ApplicationSet", "name": "guestbook-rollout", "uid": "4",
         "controller": True},
    ]  # fmt: skip
    state = read_application(_app(ownerReferences=owners), "app.json")  # type: ignore[arg-type]
    assert state.owner == APPSET
    state = read_application(_app(ownerReferences=owners[:3]), "app.json")  # type: ignore[arg-type]
    assert state.owner is not None and state.owner.name == "payments-rollout"  # none controls: the first of ours
    assert read_application(_app(ownerReferences=owners[:2]), "app.json").owner is None  # type: ignore[arg-type]
    timeline = story(_with_app(tmp_path, _app(ownerReferences=owners[2:3])))
    assert lane(timeline) == [("RolloutWaveStarted", "rollout of v9.0.0: wave canary started")]


@pytest.mark.parametrize(
    ("owners", "expected"),
    [
        ("guestbook-rollout", "app.json: ownerReferences should be a list, got str"),
        (["guestbook-rollout"], "app.json: ownerReferences[0] should be an object"),
        ([{"kind": "ApplicationSet", "name": 7}],
         "app.json: metadata.ownerReferences[0]: name should be a str, got int"),
        ([{"kind": "ApplicationSet", "apiVersion": "argoproj.io/v1alpha1", "name": "x", "controller": "yes"}],
         "app.json: metadata.ownerReferences[0]: controller should be a bool, got str"),
    ],
)  # fmt: skip
def test_malformed_owner_references_are_one_error_naming_the_field(owners: object, expected: str) -> None:
    with pytest.raises(TimelineInputError) as err:
        read_application(_app(ownerReferences=owners), "app.json")  # type: ignore[arg-type]
    assert err.value.message == expected


def test_without_the_application_the_rollout_events_are_a_note() -> None:
    timeline = story([ROLLOUT / "events-argocd.json"])
    assert lane(timeline) == []
    assert "10 rollout Event(s) left out: no Application object to tell which ApplicationSet owns it" in timeline.notes


def test_the_window_keeps_the_waves_inside_it() -> None:
    from datetime import timedelta

    request = Request(app=APP, namespace="argocd", since=timedelta(minutes=20), since_text="20m")
    timeline = build(request, gather(read_files(files()), request))
    # 09:43:12 .. 10:03:12: the bake of eu, the last wave, its bake and the end
    assert lane(timeline) == WAVES[5:]


# -- live


@pytest.fixture
def management(tmp_path: Path):  # type: ignore[no-untyped-def]
    import threading

    server = FakeAPI()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.objects[f"/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/{APP}"] = json.loads(
        (ROLLOUT / "app.json").read_text()
    )
    server.lists["/api/v1/namespaces/argocd/events"] = ("EventList", items(ROLLOUT / "events-argocd.json"))
    server.lists["/api/v1/namespaces/argocd/secrets"] = ("SecretList", [])
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        json.dumps({
            "apiVersion": "v1", "kind": "Config", "current-context": "mgmt",
            "clusters": [{"name": "mgmt", "cluster": {"server": server.url}}],
            "users": [{"name": "admin", "user": {"token": "management-token"}}],
            "contexts": [{"name": "mgmt", "context": {"cluster": "mgmt", "user": "admin"}}],
        })
    )  # fmt: skip
    yield server, kubeconfig
    server.shutdown()
    server.server_close()


def test_live_reads_the_owning_applicationsets_events(run, management) -> None:  # type: ignore[no-untyped-def]
    server, kubeconfig = management
    result = run("timeline", APP, "--kubeconfig", kubeconfig, "--since", "3650d", "-o", "json")
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    recorded = json.loads((ROLLOUT / "expected-timeline.json").read_text())
    assert [e for e in doc["entries"] if e["lane"] == "Rollout"] == [
        e for e in recorded["entries"] if e["lane"] == "Rollout"
    ]
    asked = "fieldSelector=involvedObject.kind%3DApplicationSet%2CinvolvedObject.name%3Dguestbook-rollout"
    assert any(asked in r for r in server.requests)


def test_a_refused_list_of_the_applicationsets_events_is_a_note(run, management) -> None:  # type: ignore[no-untyped-def]
    server, kubeconfig = management
    server.forbidden_selectors.add("involvedObject.kind=ApplicationSet")
    result = run("timeline", APP, "--kubeconfig", kubeconfig, "--since", "3650d", "-o", "json")
    assert result.code == 0, result.err
    assert result.err == (
        "note: Events of ApplicationSet guestbook-rollout not readable (403): the Rollout lane is left out\n"
    )
    doc = json.loads(result.out)
    assert "Rollout" not in {e["lane"] for e in doc["entries"]}
    assert {e["lane"] for e in doc["entries"]} >= {"Operation", "Sync", "Health"}  # the rest of the story stays


@pytest.mark.parametrize(
    "name",
    ["guestbook-rollout,involvedObject.namespace=kube-system", "guestbook-rollout&limit=1", "Guestbook", "x" * 300],
)
def test_an_owner_name_that_is_no_object_name_is_never_put_in_a_selector(run, management, name: str) -> None:  # type: ignore[no-untyped-def]
    server, kubeconfig = management
    path = f"/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/{APP}"
    server.objects[path]["metadata"]["ownerReferences"][0]["name"] = name
    result = run("timeline", APP, "--kubeconfig", kubeconfig, "--since", "3650d", "-o", "json")
    assert result.code == 0, result.err
    assert result.err == (
        f"note: ownerReferences name ApplicationSet {name[:80]!r}, which is not an object name: "
        "the Rollout lane is left out\n"
    )
    assert not any("ApplicationSet" in r for r in server.requests)
    assert "Rollout" not in {e["lane"] for e in json.loads(result.out)["entries"]}
