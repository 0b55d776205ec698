"""`argocd-lifecycle drift APP` offline, through the real entry point: the report, exit codes, errors."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from argocd_lifecycle.app.cli import main

FIXTURES = Path(__file__).parents[3] / "fixtures" / "drift"
APP = str(FIXTURES / "application.json")
OBJECTS = str(FIXTURES / "objects.json")


@dataclass
class Run:
    code: int
    out: str
    err: str


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    code: object = 0
    try:
        main(["drift", *argv])
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return Run(code if isinstance(code, int) else 1, out.out, out.err)


def _write(path: Path, doc: Any) -> str:
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc)
    return str(path)


def test_attributed_drift_exits_2_and_names_who_changed_what(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "shop", "--application", APP, "--objects", OBJECTS)
    assert result.code == 2, result.err
    assert "spec.replicas 3 -> 5 by kubectl, Update /scale, time not recorded" in result.out
    assert '.env[name=LOG_LEVEL].value "info" -> "debug" by kubectl-edit, Update, 10:32:05Z' in result.out
    assert "data.password changed (Secret: value not read) by kubectl-edit" in result.out
    assert result.err == ""
    for secret in ("bGl2ZS1zZWNyZXQ", "c3VwZXItc2VjcmV0"):
        assert secret not in result.out


def test_json_is_the_same_report(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "shop", "--application", APP, "--objects", OBJECTS, "-o", "json")
    doc = json.loads(result.out)
    assert result.code == 2 and doc["attributed"] is True and doc["state"] == "live"
    assert [o["kind"] for o in doc["objects"]] == ["Deployment", "ConfigMap", "Secret"]


def test_objects_not_in_the_files_are_not_attributed(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "shop", "--application", APP)
    assert result.code == 0
    assert result.out.count("not attributed: not in the objects files") == 3


def test_a_new_revision_is_no_drift(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    raw = json.loads(Path(APP).read_text())
    raw["status"]["sync"]["revision"] = "feedface"
    result = run(capsys, "shop", "--application", _write(tmp_path / "a.json", raw), "--objects", OBJECTS)
    assert result.code == 0
    assert "a new revision not yet synced (desired feedface, synced 9f2c41d" in result.out


def test_an_application_in_a_list_is_found_by_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    raw = json.loads(Path(APP).read_text())
    other = {**raw, "metadata": {"name": "other", "namespace": "argocd"}}
    listed = _write(tmp_path / "l.json", {"apiVersion": "v1", "kind": "List", "items": [other, raw]})
    assert run(capsys, "shop", "--application", listed, "--objects", OBJECTS).code == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ("nope", "--application", APP),
            "'nope' not found in namespace 'argocd' (the files hold argocd/shop)",
        ),
        (("shop", "-n", "x", "--application", APP), "not found in namespace 'x'"),
        (("shop", "--objects", OBJECTS), "--objects needs --application"),
        (("shop", "--application", APP, "--kubeconfig", "k"), "read files only"),
        (("shop", "--application", "/nonexistent.json"), "/nonexistent.json: cannot read"),
        (("shop", "--max-objects", "0", "--application", APP), "0 is not in the range"),
    ],
)
def test_errors_are_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    result = run(capsys, *argv)
    assert result.code == 1
    assert message in result.err
    assert "Traceback" not in result.err and result.out == ""


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", "\xff\xfe", '{"kind": "List", "items": "x"}'])
def test_hostile_files_are_one_error(capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content.encode("latin-1"))
    for argv in (("--application", str(bad)), ("--application", APP, "--objects", str(bad))):
        result = run(capsys, "shop", *argv)
        assert result.code == 1, argv
        assert result.err.startswith("error: ") and "Traceback" not in result.err


def test_not_an_application_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    raw = {"apiVersion": "example.com/v1", "kind": "Application", "metadata": {"name": "shop"}}
    result = run(capsys, "shop", "--application", _write(tmp_path / "a.json", raw))
    assert result.code == 1
    assert "not an Argo CD Application" in result.err


def test_an_object_over_the_byte_bound_is_not_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    objects = json.loads(Path(OBJECTS).read_text())
    objects["items"][1]["data"] = {"big": "x" * (1024 * 1024 + 1)}
    result = run(capsys, "shop", "--application", APP, "--objects", _write(tmp_path / "o.json", objects))
    assert "ConfigMap shop/web-config\n  not attributed: the object is larger than 1024 KiB" in result.out


def test_a_secret_in_the_files_is_cut_to_its_metadata(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    objects = json.loads(Path(OBJECTS).read_text())
    # a data field no JSON reader could take would make any read of it fail
    objects["items"][2]["data"] = {"password": "x" * (2 * 1024 * 1024)}
    result = run(capsys, "shop", "--application", APP, "--objects", _write(tmp_path / "o.json", objects))
    assert "data.password changed (Secret: value not read) by kubectl-edit" in result.out
