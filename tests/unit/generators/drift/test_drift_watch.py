"""The generator's drift watch: one publication per drift episode, its end, leadership, retries, the
self-heal note, the window, bounds; and what it publishes (message, receiver body)."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.drift.attribute import ObjectRef
from argocd_lifecycle.drift.report import AppDrift, DriftReport, read_app
from argocd_lifecycle.errors import ConfigError, UsageError
from argocd_lifecycle.generators.drift.publish import message, receiver_body
from argocd_lifecycle.generators.drift.reader import Read
from argocd_lifecycle.generators.drift.watch import SELF_HEAL_NOTE, DriftWatch, Episode
from argocd_lifecycle.generators.drift.window import Windows, project_windows
from argocd_lifecycle.generators.service.policy import load_policy
from argocd_lifecycle.model import Phase

FIXTURES = Path(__file__).parents[3] / "fixtures" / "drift"
NOW = datetime(2026, 1, 2, 10, 35, 0, tzinfo=UTC)
DEPLOYMENT = ObjectRef("apps", "Deployment", "shop", "web")


def _app() -> dict[str, Any]:
    return json.loads((FIXTURES / "application.json").read_text())


def _objects() -> dict[ObjectRef, Read]:
    items = json.loads((FIXTURES / "objects.json").read_text())["items"]
    return {DEPLOYMENT: next(i for i in items if i["kind"] == "Deployment")}


class Outputs:
    def __init__(self) -> None:
        self.detected_calls: list[tuple[AppDrift, DriftReport, Episode, str]] = []
        self.resolved_calls: list[AppDrift] = []
        self.answer = True

    async def detected(self, app: AppDrift, report: DriftReport, episode: Episode, note: str) -> bool:
        self.detected_calls.append((app, report, episode, note))
        return self.answer

    async def resolved(self, app: AppDrift) -> bool:
        self.resolved_calls.append(app)
        return self.answer


class Reader:
    def __init__(self, reads: Mapping[ObjectRef, Read] | None = None) -> None:
        self.reads = _objects() if reads is None else reads
        self.asked: list[tuple[ObjectRef, ...]] = []

    async def __call__(self, app: AppDrift, refs: Sequence[ObjectRef]) -> Mapping[ObjectRef, Read]:
        self.asked.append(tuple(refs))
        return {r: self.reads.get(r, "not found in the cluster") for r in refs}


def _watch(reader: Reader, outputs: Outputs, **kwargs: Any) -> DriftWatch:
    return DriftWatch(reader, outputs, clock=lambda: NOW, **kwargs)


def _step(watch: DriftWatch) -> None:
    asyncio.run(watch.step())


def _published(app: dict[str, Any], since: str = "2026-01-02T10:35:00Z") -> dict[str, Any]:
    out = copy.deepcopy(app)
    out["metadata"]["annotations"]["argocd-lifecycle.io/drift-since"] = since
    return out


def _synced(app: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(app)
    for r in out["status"]["resources"]:
        r["status"] = "Synced"
    return out


def test_live_drift_is_published_once_per_episode_then_its_end() -> None:
    reader, outputs = Reader(), Outputs()
    watch = _watch(reader, outputs)
    consumer = watch.consumer()
    consumer.listed([_app()])
    _step(watch)
    ((app, report, episode, note),) = outputs.detected_calls
    assert (app.name, report.attributed, note) == ("shop", True, "")
    assert episode.since == NOW and episode.deadline == NOW + timedelta(minutes=45)  # the annotation's window
    assert episode.window_source == "annotation argocd-lifecycle.io/drift-window"
    assert reader.asked == [tuple(app.out_of_sync)]
    consumer.upserted(_app())  # Argo CD rewrites the status: nothing new
    consumer.upserted(_published(_app()))  # our own annotation comes back: told once
    _step(watch)
    assert len(outputs.detected_calls) == 1
    consumer.upserted(_synced(_published(_app())))
    _step(watch)
    assert [a.name for a in outputs.resolved_calls] == ["shop"]
    consumer.upserted(_synced(_app()))  # the annotations gone: nothing more
    _step(watch)
    assert len(outputs.resolved_calls) == 1 and len(outputs.detected_calls) == 1


def test_a_restart_finds_the_episode_on_the_application() -> None:
    outputs = Outputs()
    watch = _watch(Reader(), outputs)
    watch.consumer().listed([_published(_app())])
    _step(watch)
    assert outputs.detected_calls == [] and outputs.resolved_calls == []


def test_a_new_revision_starts_no_episode_and_ends_none() -> None:
    raw = _app()
    raw["status"]["sync"]["revision"] = "feedface"
    outputs = Outputs()
    watch = _watch(Reader(), outputs)
    watch.consumer().listed([raw, {**_published(raw), "metadata": {**_published(raw)["metadata"], "name": "b"}}])
    _step(watch)
    assert outputs.detected_calls == [] and outputs.resolved_calls == []


def test_a_follower_decides_nothing_and_keeps_its_marks() -> None:
    leader = False
    outputs = Outputs()
    watch = _watch(Reader(), outputs, is_leader=lambda: leader)
    watch.consumer().listed([_app()])
    _step(watch)
    assert outputs.detected_calls == []
    leader = True
    _step(watch)
    assert len(outputs.detected_calls) == 1


def test_nothing_is_decided_before_the_list() -> None:
    outputs = Outputs()
    watch = _watch(Reader(), outputs)
    watch.consumer().upserted(_app())
    _step(watch)
    assert outputs.detected_calls == []


def test_a_failed_publication_is_tried_again() -> None:
    outputs = Outputs()
    outputs.answer = False
    watch = _watch(Reader(), outputs)
    watch.consumer().listed([_app()])
    _step(watch)
    outputs.answer = True
    _step(watch)
    _step(watch)
    assert len(outputs.detected_calls) == 2


def test_a_bug_in_one_application_does_not_stop_the_others() -> None:
    class Broken(Reader):
        async def __call__(self, app: AppDrift, refs: Sequence[ObjectRef]) -> Mapping[ObjectRef, Read]:
            if app.name == "shop":
                raise RuntimeError("bug")
            return await super().__call__(app, refs)

    other = copy.deepcopy(_app())
    other["metadata"]["name"] = "web"
    outputs = Outputs()
    watch = _watch(Broken(), outputs)
    watch.consumer().listed([_app(), other])
    _step(watch)
    assert [a.name for a, *_ in outputs.detected_calls] == ["web"]


def test_an_unreadable_cluster_is_published_unattributed() -> None:
    outputs = Outputs()
    watch = _watch(Reader(dict.fromkeys(_objects(), "cluster not readable: HTTP 403")), outputs)
    watch.consumer().listed([_app()])
    _step(watch)
    ((_, report, _, _),) = outputs.detected_calls
    assert not report.attributed
    assert report.objects[0].unattributed == "cluster not readable: HTTP 403"


def test_self_heal_that_won_the_race_is_said() -> None:
    raw = _app()
    raw["spec"]["syncPolicy"]["automated"]["selfHeal"] = True
    outputs = Outputs()
    watch = _watch(Reader({}), outputs)
    watch.consumer().listed([raw])
    _step(watch)
    assert outputs.detected_calls[0][3] == SELF_HEAL_NOTE


def test_objects_nobody_but_argocd_changed_start_no_episode_and_are_read_once() -> None:
    obj = copy.deepcopy(_objects()[DEPLOYMENT])
    assert isinstance(obj, dict)
    obj["metadata"]["managedFields"] = obj["metadata"]["managedFields"][:1]  # argocd-controller's only
    raw = _app()
    raw["status"]["resources"] = [r for r in raw["status"]["resources"] if r["kind"] == "Deployment"]
    reader, outputs = Reader({DEPLOYMENT: obj}), Outputs()
    watch = _watch(reader, outputs)
    watch.consumer().listed([raw])
    _step(watch)
    watch._mark(["argocd/shop"])  # a resync
    _step(watch)
    assert outputs.detected_calls == [] and len(reader.asked) == 1
    watch.consumer().upserted(copy.deepcopy(raw))  # the same status: not read again
    _step(watch)
    assert len(reader.asked) == 1
    later = copy.deepcopy(raw)
    later["status"]["reconciledAt"] = "2026-01-02T10:40:00Z"  # Argo CD compared again (say, after an edit)
    obj["metadata"]["managedFields"] = _objects()[DEPLOYMENT]["metadata"]["managedFields"]  # type: ignore[index]
    watch.consumer().upserted(later)
    _step(watch)
    assert len(reader.asked) == 2
    assert len(outputs.detected_calls) == 1 and outputs.detected_calls[0][1].attributed


def test_objects_per_episode_are_bounded() -> None:
    raw = _app()
    raw["status"]["resources"] = [
        {"version": "v1", "kind": "ConfigMap", "namespace": "shop", "name": f"c{i}", "status": "OutOfSync"}
        for i in range(40)
    ]
    reader, outputs = Reader({}), Outputs()
    watch = _watch(reader, outputs, max_objects=5)
    watch.consumer().listed([raw])
    _step(watch)
    assert len(reader.asked[0]) == 5
    assert outputs.detected_calls[0][1].skipped == 35


@pytest.mark.parametrize(
    ("annotation", "project", "seconds", "source"),
    [
        ("45m", "", 2700, "annotation argocd-lifecycle.io/drift-window"),
        (None, "", 1800, "default"),
        (None, "payments", 600, "project payments"),
        ("soon", "payments", 600, "project payments (annotation argocd-lifecycle.io/drift-window ignored"),
        ("0s", "", 1800, "default (annotation"),
        ("30d", "", 1800, "default (annotation"),
    ],
)
def test_the_window(annotation: str | None, project: str, seconds: float, source: str) -> None:
    raw = _app()
    del raw["metadata"]["annotations"]["argocd-lifecycle.io/drift-window"]
    if annotation is not None:
        raw["metadata"]["annotations"]["argocd-lifecycle.io/drift-window"] = annotation
    windows = Windows(projects={"payments": 600.0} if project else {})
    got, where = windows.of(read_app(raw))
    assert got == seconds and where.startswith(source)


def test_a_default_window_past_a_week_is_refused() -> None:
    with pytest.raises(UsageError, match="at most a week"):
        Windows(default=8 * 86400.0)


def test_the_message_and_the_receiver_body() -> None:
    outputs = Outputs()
    watch = _watch(Reader(), outputs)
    watch.consumer().listed([_app()])
    _step(watch)
    app, report, episode, note = outputs.detected_calls[0]
    text = message(report, episode, note)
    assert text.startswith("Application argocd/shop: live drift (revision 9f2c41d")
    assert "Deployment shop/web: " in text
    assert "spec.replicas 3 -> 5 by kubectl, Update /scale, time not recorded" in text
    assert text.endswith("Break-glass window until 2026-01-02T11:20:00Z (annotation argocd-lifecycle.io/drift-window).")
    body = receiver_body(app, report, episode, note)
    assert {k: body[k] for k in ("trigger", "severity", "app", "namespace", "project")} == {
        "trigger": "DriftDetected",
        "severity": "warning",
        "app": "shop",
        "namespace": "argocd",
        "project": "payments",
    }
    assert body["cluster"] == "https://prod-eu-1.example.com:6443"
    assert body["labels"] == {"drift": "live", "attributed": "true"}
    assert all(isinstance(v, str) for k, v in body.items() if k != "labels")
    assert body["revision"] == receiver_body(app, report, episode, note)["revision"]  # a retry is one event


def test_project_windows_come_from_the_policy_file(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("Upgrading: {prune: true}\ndriftWindows:\n  payments: 10m\n  web: 2h\n")
    assert project_windows(policy) == {"payments": 600.0, "web": 7200.0}
    assert load_policy(policy).rule(Phase.UPGRADING).prune is True  # the phase table leaves the key alone
    assert project_windows(None) == {}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("driftWindows: [1]\n", "expected a mapping of project to duration"),
        ("driftWindows: {payments: 5}\n", "pairs of strings"),
        ("driftWindows: {payments: soon}\n", "driftWindows.payments: 'soon' is not a duration"),
        ("driftWindows: {payments: 8d}\n", "longer than 7 days"),
    ],
)
def test_bad_project_windows_are_one_error_naming_the_file(tmp_path: Path, text: str, problem: str) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(text)
    with pytest.raises(ConfigError, match=problem) as caught:
        project_windows(policy)
    assert str(policy) in caught.value.message
