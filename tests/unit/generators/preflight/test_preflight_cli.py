"""`argocd-lifecycle preflight` offline, through the real entry point: stdout, stderr, exit codes."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from argocd_lifecycle.app.cli import main

from .helpers import APPS_FILE, SECRETS_FILE, application, resource, secret_object


@dataclass
class Run:
    code: int
    out: str
    err: str


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    code: object = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return Run(code if isinstance(code, int) else 1, out.out, out.err)


STORY = ("--from-file", str(APPS_FILE), "--from-file", str(SECRETS_FILE))


def write(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc))
    return path


def test_exit_codes_follow_the_worst_finding(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *STORY).code == 3
    assert run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *STORY, "--fail-on", "blockers").code == 3
    assert run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *STORY, "--fail-on", "never").code == 0
    assert run(capsys, "preflight", "prod-eu-1", "--to", "1.24", *STORY).code == 2  # deprecated there
    assert run(capsys, "preflight", "prod-eu-1", "--to", "1.20", *STORY).code == 0  # nothing deprecated yet
    # only deprecated and rewritten objects: 2, or 0 with --fail-on blockers
    ok = write(tmp_path / "apps.json", {"kind": "List", "items": [
        application("ours", [resource("policy/v1beta1", "PodDisruptionBudget", "a")],
                    server="https://prod-eu-1.example.test:6443", plugin={"name": "argocd-lifecycle-v1"},
                    source_type="Plugin"),
    ]})  # fmt: skip
    files = ("--from-file", str(ok), "--from-file", str(SECRETS_FILE))
    assert run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *files).code == 2
    assert run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *files, "--fail-on", "blockers").code == 0


def test_every_format_and_the_notes(capsys: pytest.CaptureFixture[str]) -> None:
    table = run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *STORY)
    assert "argocd/shop" in table.out and "rewritten" in table.out and table.err == ""
    doc = json.loads(run(capsys, "preflight", "https://prod-eu-1.example.test:6443", "--to", "v1.25.0", *STORY,
                         "-o", "json").out)  # fmt: skip
    assert doc["cluster"] == {"name": "prod-eu-1", "server": "https://prod-eu-1.example.test:6443"}
    assert doc["summary"]["blockers"] == 3 and doc["summary"]["rewritten"] == 3 and doc["currentVersion"] == "1.24"
    md = run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *STORY, "-o", "markdown", "--current-version", "1.23")
    assert md.out.startswith("### Upgrade preflight: prod-eu-1 1.23 -> 1.25")


def test_bad_input_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"kind": "List", "items": [\n  {"kind": }\n]}')
    cases = {
        "nope": ("preflight", "nope", "--to", "1.25", *STORY),
        "broken": ("preflight", "prod-eu-1", "--to", "1.25", "--from-file", str(broken)),
        "missing": ("preflight", "prod-eu-1", "--to", "1.25", "--from-file", str(tmp_path / "absent.json")),
        "version": ("preflight", "prod-eu-1", "--to", "soon", *STORY),
        "no target": ("preflight", "prod-eu-1", *STORY),
        "other kind": ("preflight", "prod-eu-1", "--to", "1.25", "--from-file",
                       str(write(tmp_path / "cm.json", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}))),
    }  # fmt: skip
    expected = {
        "nope": "error: cluster 'nope' is not named by any cluster Secret (known clusters: prod-eu-1, staging)",
        "broken": f"error: {broken}: not valid JSON: Expecting value at line 2 column 12",
        "missing": "absent.json: cannot read: No such file or directory",
        "version": "'soon' is not a Kubernetes version",
        "no target": "Missing option '--to'",
        "other kind": "cm.json: is v1 ConfigMap; expected Argo CD Applications or cluster Secrets",
    }
    for name, argv in cases.items():
        result = run(capsys, *argv)
        assert result.code == 1, name
        assert result.out == "", name
        assert expected[name] in result.err, (name, result.err)
        assert "Traceback" not in result.err


def test_secret_values_never_reach_the_output(capsys: pytest.CaptureFixture[str]) -> None:
    for output in ("table", "json", "markdown"):
        result = run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *STORY, "-o", output)
        assert "not-a-real-token" not in result.out + result.err
        assert "hunter2" not in result.out + result.err


def test_a_bad_cluster_secret_is_a_note_not_a_failure(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = secret_object("broken", "ftp://nowhere")
    good = secret_object("prod-eu-1", "https://prod-eu-1.example.test:6443")
    path = write(tmp_path / "secrets.json", {"kind": "SecretList", "apiVersion": "v1", "items": [bad, good]})
    result = run(
        capsys, "preflight", "prod-eu-1", "--to", "1.25", "--from-file", str(APPS_FILE), "--from-file", str(path)
    )
    assert result.code == 3
    assert "note: cluster Secret skipped:" in result.err and "is not an http(s) URL" in result.err


def test_a_cluster_whose_tls_data_does_not_parse_is_still_found_and_the_report_says_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Issue 24: on 6729d94 this was "error: cluster 'prod-eu-1' is not named by any cluster Secret", exit 1,
    and the reason (the unparseable caData) was known and dropped."""
    bad = secret_object("prod-eu-1", "https://prod-eu-1.example.test:6443",
                        annotations={"argocd-lifecycle.io/kubernetes-version": "1.24.7"})  # fmt: skip
    bad["data"]["config"] = base64.b64encode(json.dumps({"tlsClientConfig": {"caData": "\u00e9"}}).encode()).decode()
    path = write(tmp_path / "secrets.json", {"kind": "SecretList", "apiVersion": "v1", "items": [bad]})
    files = ("--from-file", str(APPS_FILE), "--from-file", str(path))
    result = run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *files, "-o", "json")
    assert result.code == 3, result.err
    doc = json.loads(result.out)
    assert doc["summary"]["blockers"] == 3 and doc["currentVersion"] == "1.24"
    why = "config.tlsClientConfig.caData is not base64"
    assert any(n.startswith("matched by name and server only") and why in n for n in doc["notes"])
    assert result.err == f"note: cluster Secret skipped: {path}: item 0: {why}\n"
    table = run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *files)
    assert "note: matched by name and server only, its credentials were not read:" in table.out


def test_when_no_cluster_matches_the_skipped_secrets_are_named_before_the_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    nameless = secret_object("prod-eu-1")
    del nameless["data"]["server"]
    path = write(tmp_path / "secrets.json", {"kind": "SecretList", "apiVersion": "v1", "items": [nameless]})
    result = run(capsys, "preflight", "prod-eu-1", "--to", "1.25", "--from-file", str(APPS_FILE), "--from-file",
                 str(path))  # fmt: skip
    assert result.code == 1 and result.out == ""
    note, error = result.err.splitlines()
    assert note.startswith("note: cluster Secret skipped: ") and note.endswith("data.server is missing")
    assert error == (
        "error: cluster 'prod-eu-1' is not named by any cluster Secret; 1 cluster Secret(s) skipped without a "
        "readable name and server (see the notes)"
    )


def test_project_keeps_one_teams_applications(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Tenants: team-a's Application (in its own namespace and AppProject) reported apart from team-b's."""
    old = [resource("policy/v1beta1", "PodDisruptionBudget", "a")]
    a = application("web", old, server="https://prod-eu-1.example.test:6443", namespace="team-a")
    b = application("web", old, server="https://prod-eu-1.example.test:6443", namespace="team-b")
    a["spec"]["project"], b["spec"]["project"] = "team-a", "team-b"
    apps = write(tmp_path / "apps.json", {"kind": "List", "items": [a, b]})
    files = ("--from-file", str(apps), "--from-file", str(SECRETS_FILE))
    both = run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *files)
    assert "team-a/web" in both.out and "team-b/web" in both.out
    one = run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *files, "--project", "team-a")
    assert "team-a/web" in one.out and "team-b/web" not in one.out
    none = run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *files, "--project", "nobody")
    assert none.code == 0 and "team-a/web" not in none.out


@pytest.mark.parametrize("hostile", ["Team-A", "team/a", "team-a\n", "a" * 64, ""])
def test_a_hostile_application_namespace_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], hostile: str
) -> None:
    result = run(capsys, "preflight", "prod-eu-1", "--to", "1.25", *STORY, "--application-namespace", hostile)
    assert result.code == 1 and result.out == ""
    assert result.err.startswith("error: --application-namespace: ") and result.err.count("\n") == 1
