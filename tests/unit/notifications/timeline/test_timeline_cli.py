"""``argocd-lifecycle timeline`` from files: formats, exit codes, one-line errors, nothing half-written."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.notifications.timeline.cli import parse_since

from .conftest import BLUEGREEN, FAILED, from_files


def test_table_is_the_default_and_goes_to_stdout(run) -> None:  # type: ignore[no-untyped-def]
    result = run("timeline", "checkout", "--utc", *from_files("checkout"))
    assert result.code == 0, result.err
    assert result.err == ""
    lines = result.out.splitlines()
    assert lines[0].startswith("Application argocd/checkout, -> https://kubernetes.default.svc namespace shop,")
    header = lines[2]
    assert header.split() == ["TIME", "OFFSET", "LANE", "REASON", "OBJECT", "UNTIL", "COUNT", "SOURCE", "MESSAGE"]
    column = header.index("LANE")
    rows = [line for line in lines[3:] if line.startswith("2026-")]
    assert len(rows) == 11  # 8 Argo CD Events, 2 deployments from status.history, the last operation
    assert all(row[column:].split()[0] in {"Operation", "Sync", "Health", "Resource"} for row in rows)
    assert rows[0].startswith("2026-03-03 16:40:02 +00:00  +0s ")


def test_table_shows_spans_and_flags_lost_timestamps(run) -> None:  # type: ignore[no-untyped-def]
    result = run("timeline", "checkout", "--utc", "--include-resources", *from_files("checkout"))
    row = next(line for line in result.out.splitlines() if "Unhealthy" in line)
    assert "14:02:34 (+15s)" in row
    assert " 4* " in row
    assert result.out.rstrip().endswith("the occurrences in between are lost.")


def test_local_time_with_offset_by_default(run, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    import time

    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        result = run("timeline", "checkout", *from_files("checkout"))
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
    assert "2026-03-04 15:02:11 +01:00" in result.out


def test_markdown_for_incident_reports(run) -> None:  # type: ignore[no-untyped-def]
    result = run("timeline", "payments", "--utc", "-o", "markdown", "--include-resources", *from_files("payments"))
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "## Timeline of `payments` (`argocd`)"
    table = [line for line in lines if line.startswith("| ")]
    assert table[0] == "| Time | Offset | Lane | Reason | Object | Until | Count | Source | Message |"
    assert len(table) == 1 + 31
    assert all(line.count(" | ") == 8 for line in table)  # no message breaks the table
    assert "| Cluster | **ClusterDegraded** | `Secret/cluster-prod-eu-1` | 09:57:10 (+1m30s) | 3\\* |" in result.out


def test_json_is_written_whole_to_stdout(run) -> None:  # type: ignore[no-untyped-def]
    result = run("timeline", "payments", "-o", "json", *from_files("payments"))
    doc = json.loads(result.out)
    assert doc["kind"] == "ApplicationTimeline"
    assert [e["lane"] for e in doc["entries"]].count("Cluster") == 2


def test_svg_is_written_to_stdout(run) -> None:  # type: ignore[no-untyped-def]
    result = run("timeline", "checkout", "-o", "svg", *from_files("checkout"))
    assert result.code == 0, result.err
    assert result.out.lstrip().startswith("<?xml")
    assert result.out.rstrip().endswith("</svg>")


def test_notes_go_to_stderr(run) -> None:  # type: ignore[no-untyped-def]
    result = run(
        "timeline", "payments", "--from-file", FAILED / "app.json", "--from-file", FAILED / "events-argocd.json"
    )
    assert result.code == 0
    assert result.err.startswith("note: 3 cluster Event(s) left out")


def test_since_applies_to_files_when_given(run) -> None:  # type: ignore[no-untyped-def]
    result = run("timeline", "checkout", "--utc", "--since", "30s", "-o", "json", *from_files("checkout"))
    doc = json.loads(result.out)
    assert doc["window"]["since"] == "30s"
    assert [e["reason"] for e in doc["entries"]] == ["ResourceActionRan", "ResourceUpdated"]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"kind": "List", "items": [', "bad.json: not valid JSON: Expecting value at line 1 column 28"),
        ("[]", "bad.json: expected a JSON object (kubectl get ... -o json), got list"),
        (
            '{"kind": "List", "items": [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}}]}',
            "bad.json: item 0: is apps/v1 Deployment; expected Events, Argo CD Applications or cluster Secrets",
        ),
        (
            '{"kind": "EventList", "apiVersion": "v1", "items": [{"metadata": {"name": "e"}, "count": "many"}]}',
            "bad.json: item 0: count should be a int, got str",
        ),
        ('{"kind": "List", "items": {}}', "bad.json: items should be a list"),
        # a recursion error inside the JSON decoder, not a traceback
        ('{"kind": "List", "items": ' + "[" * 100_000 + "]" * 100_000 + "}", "bad.json: JSON nested too deeply"),
        (b'{"kind": "List", "items": [{"a": "\x80"}]}', "bad.json: not UTF-8 text"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(run, tmp_path: Path, content: str | bytes, expected: str) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.json"
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = run("timeline", "checkout", "--from-file", BLUEGREEN / "app.json", "--from-file", bad)
    assert (result.code, result.out) == (1, "")
    assert result.err == f"error: {bad.parent}/{expected}\n"


def test_unknown_application_names_what_the_files_hold(run) -> None:  # type: ignore[no-untyped-def]
    result = run("timeline", "ghost", *from_files("checkout"))
    assert (result.code, result.out) == (1, "")
    assert result.err == "error: application 'ghost' not found in namespace 'argocd' (the files hold argocd/checkout)\n"


def test_an_application_in_another_namespace_is_not_taken(run) -> None:  # type: ignore[no-untyped-def]
    result = run("timeline", "checkout", "-n", "team-a", *from_files("checkout"))
    assert result.code == 1
    assert "not found in namespace 'team-a'" in result.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from-file", "/nonexistent/events.json"], "'/nonexistent/events.json' does not exist"),
        (["--since", "soon", "--from-file", str(BLUEGREEN / "app.json")], "Invalid value for --since"),
        # a window reaching back before year 1 is refused, not a crash in the date arithmetic
        (["--since", "99999999d", "--from-file", str(BLUEGREEN / "app.json")], "is longer than 36500 days"),
        (["-o", "pdf"], "'pdf' is not one of"),
        (["--from-file", str(BLUEGREEN / "app.json"), "--context", "prod"], "--from-file reads files only"),
    ],
)
def test_usage_errors_exit_2(run, args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    result = run("timeline", "checkout", *args)
    assert (result.code, result.out) == (2, "")
    assert message in result.err


def test_single_objects_and_typed_lists_from_the_api_are_read(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    core = json.loads((FAILED / "events-argocd.json").read_text())
    # the API server's own list: kind EventList, items without apiVersion/kind
    typed = {"apiVersion": "v1", "kind": "EventList", "metadata": {}, "items": []}
    for item in core["items"]:
        typed["items"].append({k: v for k, v in item.items() if k not in ("apiVersion", "kind")})
    events = write(tmp_path, "events.json", json.dumps(typed))
    single = write(tmp_path, "one-event.json", json.dumps(core["items"][0]))
    result = run(
        "timeline", "payments", "-o", "json", "--from-file", FAILED / "app.json", "--from-file", events,
        "--from-file", single, "--from-file", FAILED / "cluster-secrets.json",
    )  # fmt: skip
    assert result.code == 0, result.err
    reasons = [e["reason"] for e in json.loads(result.out)["entries"]]
    assert reasons.count("ClusterDegraded") == 1  # the same Event in two files counts once
    assert "OperationCompleted" in reasons


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("2h", 7200), ("90m", 5400), ("1h30m", 5400), ("45s", 45), ("7d", 604800), ("3650d", 3650 * 86400)],
)
def test_since_durations(text: str, seconds: int) -> None:
    assert parse_since(text) == timedelta(seconds=seconds)


# the one duration format of every command (argocd_lifecycle.times): whole numbers, units in order
@pytest.mark.parametrize("text", ["", "2", "h", "2x", "-1h", "0s", "1h 30m", "30m1", "1.5h", "30m1h", "36501d"])
def test_bad_since_durations_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError, match="--since"):
        parse_since(text)


def test_an_application_is_found_as_namespace_slash_name(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A tenant's Application, named as the argocd CLI names it (applications in any namespace)."""
    files = from_files("checkout")
    moved = []
    for flag, path in zip(files[::2], files[1::2], strict=True):
        text = Path(path).read_text().replace('"namespace": "argocd"', '"namespace": "team-a"')
        target = tmp_path / Path(path).name
        target.write_text(text)
        moved += [flag, str(target)]
    result = run("timeline", "team-a/checkout", "--utc", *moved)
    assert result.code == 0, result.err
    assert result.out.splitlines()[0].startswith("Application team-a/checkout,")
    assert run("timeline", "checkout", *moved).code == 1  # not in the Argo CD namespace


@pytest.mark.parametrize(
    "app", ["team-a/", "/checkout", "a/b/checkout", "Team-A/checkout", "team-a/Checkout", "../checkout", "x" * 300]
)
def test_a_malformed_app_reference_exits_2(run, app: str) -> None:  # type: ignore[no-untyped-def]
    result = run("timeline", app, *from_files("checkout"))
    assert result.code == 2 and result.out == ""
    assert "Invalid value for APP" in result.err and len(result.err) < 400
