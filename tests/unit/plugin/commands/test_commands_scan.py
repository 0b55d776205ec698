"""`argocd-lifecycle scan` and `convert` through the real entry point: stdout, stderr, exit codes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from argocd_lifecycle.app.cli import main
from argocd_lifecycle.yaml import yamlio
from tests.unit.app.test_app_entry import imported_modules, run_entry
from tests.unit.plugin.helpers import Run, write
from tests.unit.plugin.rewrite.helpers import REFERENCE_FIXTURES


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Run:
    code: object = 0
    try:
        main(list(argv))
    except SystemExit as exc:
        code = exc.code or 0
    out = capsys.readouterr()
    return Run(code if isinstance(code, int) else 1, out.out, out.err)


CRON = (
    "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: nightly, namespace: ops}\n"
    "spec: {schedule: '* * * * *'}\n"
)
PSP = "apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata: {name: restricted}\nspec: {}\n"
CM = "# keep me\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings   # inline comment\ndata: {a: '1'}\n"


def test_scan_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, {"cron.yaml": CRON, "cm.yaml": CM})
    assert run(capsys, "scan", str(tmp_path), "--target-version", "1.20").exit_code == 0
    assert run(capsys, "scan", str(tmp_path), "--target-version", "1.22").exit_code == 2
    assert run(capsys, "scan", str(tmp_path), "--target-version", "v1.25.3").exit_code == 3


def test_scan_table_lists_file_document_kind_name_and_versions(capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, "scan", str(REFERENCE_FIXTURES / "psp-rbac-runtimeclass.in.yaml"), "-t", "1.25")
    assert result.exit_code == 3 and result.stderr == ""
    header, *rows = result.stdout.splitlines()
    assert header.split() == [
        "FILE",
        "DOC",
        "KIND",
        "NAMESPACE",
        "NAME",
        "API",
        "VERSION",
        "STATUS",
        "DEPRECATED",
        "IN",
        "REMOVED",
        "IN",
        "REPLACEMENT",
    ]
    assert len(rows) == 4
    psp = rows[0].split()
    assert psp[1:] == ["0", "PodSecurityPolicy", "-", "restricted", "policy/v1beta1", "removed", "1.21", "1.25", "-"]
    assert rows[2].split()[1:] == [
        "2",
        "RoleBinding",
        "tenant-a",
        "psp-restricted-default",
        "rbac.authorization.k8s.io/v1beta1",
        "removed",
        "1.17",
        "1.22",
        "rbac.authorization.k8s.io/v1",
    ]


def test_scan_json_and_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, {"a.yaml": CRON + "---\n" + CM, "b.json": json.dumps(yamlio.load(PSP))})
    result = run(capsys, "scan", str(tmp_path), "-t", "1.24", "-o", "json")
    doc = json.loads(result.stdout)
    assert result.exit_code == 2  # both still served by 1.24
    assert doc["summary"] == {"objects": 3, "removed": 0, "deprecated": 2, "errors": 0}
    assert doc["targetVersion"] == "1.24" and doc["dataVersion"]
    cron, psp = doc["items"]
    assert cron == {
        "file": f"{tmp_path.as_posix()}/a.yaml",
        "document": 0,
        "apiVersion": "batch/v1beta1",
        "kind": "CronJob",
        "name": "nightly",
        "namespace": "ops",
        "status": "deprecated",
        "deprecatedIn": "1.21",
        "removedIn": "1.25",
        "replacement": "batch/v1",
        "note": "",
    }
    # extensions-era PSP lives on as policy/v1beta1, itself removed in 1.25: no replacement left then
    assert (
        psp["kind"] == "PodSecurityPolicy" and psp["status"] == "deprecated" and "Pod Security Admission" in psp["note"]
    )
    md = run(capsys, "scan", str(tmp_path), "-t", "1.24", "-o", "markdown").stdout
    assert md.startswith("### Deprecated and removed APIs for Kubernetes 1.24\n\n| FILE | DOC |")
    assert "| CronJob | ops | nightly | batch/v1beta1 | deprecated | 1.21 | 1.25 | batch/v1 |" in md


def test_scan_reports_bad_files_and_still_scans_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, {"a.yaml": CRON, "b.yaml": "kind: X\n  bad: [indent\n", "c.json": "{nope"})
    result = run(capsys, "scan", str(tmp_path), "-t", "1.25")
    assert result.exit_code == 1
    assert "nightly" in result.stdout
    assert f"error: {tmp_path.as_posix()}/b.yaml:2:" in result.stderr and "YAML syntax error" in result.stderr
    assert f"error: {tmp_path.as_posix()}/c.json:1:2: JSON syntax error" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["scan", "x.yaml"], "Missing option '--target-version'"),
        (["scan", ".", "-t", "one.two"], "'one.two' is not a Kubernetes version"),
        (["scan", ".", "-t", "1.25", "-o", "xml"], "Invalid value for '--output'"),
        (["scan", "/no/such/place", "-t", "1.25"], "/no/such/place: no such file or folder"),
    ],
)
def test_scan_usage_errors_exit_1_not_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    result = run(capsys, *argv)
    assert result.exit_code == 1  # 2 means "deprecated APIs found"
    assert message in result.stderr and result.stdout == ""


def test_scan_lists_aliases_and_additional_versions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lst = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- &cron {apiVersion: batch/v1beta1, kind: CronJob, metadata: {name: in-list}}\n"
        "---\napiVersion: example.test/v1beta1\nkind: Widget\nmetadata: {name: w}\n"
    )
    rules = (
        "deprecated-versions:\n- {version: example.test/v1beta1, kind: Widget, deprecated-in: v1.20.0,"
        " removed-in: v1.24.0, replacement-api: example.test/v1}\n"
    )
    write(tmp_path, {"m/list.yaml": lst, "rules.yaml": rules})
    result = run(capsys, "scan", str(tmp_path / "m"), "-t", "1.25", "-f", str(tmp_path / "rules.yaml"), "-o", "json")
    items = json.loads(result.stdout)["items"]
    assert [(i["document"], i["kind"], i["name"], i["status"]) for i in items] == [
        (0, "CronJob", "in-list", "removed"),
        (1, "Widget", "w", "removed"),
    ]


def test_convert_prints_the_stream_and_copies_untouched_documents(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"app.yaml": CM + "---\n" + CRON})
    result = run(capsys, "convert", str(tmp_path / "app.yaml"), "-t", "1.25")
    assert result.exit_code == 0, result.stderr
    first, second = result.stdout.split("---\n")
    assert first == CM  # comments and layout of untouched documents survive
    cron = yamlio.load(second)
    assert cron["apiVersion"] == "batch/v1" and cron["metadata"]["annotations"] == {
        "argocd-lifecycle.io/rewritten-from": "batch/v1beta1"
    }


def test_convert_fails_on_removed_apis_and_drops_or_keeps_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"app.yaml": PSP + "---\n" + CRON})
    failed = run(capsys, "convert", str(tmp_path), "-t", "1.25")
    assert failed.exit_code == 1 and failed.stdout == ""
    assert (
        "error: PodSecurityPolicy/restricted (" in failed.stderr
        and "app.yaml#0): policy/v1beta1 PodSecurityPolicy is removed in 1.25" in failed.stderr
    )
    dropped = run(capsys, "convert", str(tmp_path), "-t", "1.25", "--on-removed", "drop")
    assert [d["kind"] for d in yamlio.load_all(dropped.stdout)] == ["CronJob"]
    assert "warning: PodSecurityPolicy/restricted" in dropped.stderr and "dropped" in dropped.stderr
    kept = run(capsys, "convert", str(tmp_path), "-t", "1.25", "--on-removed", "keep")
    assert [d["apiVersion"] for d in yamlio.load_all(kept.stdout)] == ["policy/v1beta1", "batch/v1"]


def test_convert_in_place_writes_only_changed_files_and_nothing_on_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"a/cron.yaml": CRON, "a/cm.yaml": CM, "b/psp.yaml": PSP})
    before = (tmp_path / "a/cm.yaml").stat().st_mtime_ns
    failed = run(capsys, "convert", str(tmp_path), "-t", "1.25", "--in-place")
    assert failed.exit_code == 1
    assert (tmp_path / "a/cron.yaml").read_text() == CRON  # nothing half-written
    result = run(capsys, "convert", str(tmp_path / "a"), "-t", "1.25", "-i", "-v")
    assert result.exit_code == 0 and result.stdout == ""
    assert "converted 1 object(s), rewrote 1 file(s)" in result.stderr
    assert "note: CronJob/ops/nightly" in result.stderr
    assert yamlio.load((tmp_path / "a/cron.yaml").read_text())["apiVersion"] == "batch/v1"
    assert (tmp_path / "a/cm.yaml").stat().st_mtime_ns == before
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["cm.yaml", "cron.yaml"]  # no temp files left


def test_convert_validate_names_object_and_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = CRON.replace("spec: {", "spec: {suspnd: true, ")
    write(tmp_path, {"cron.yaml": bad})
    result = run(capsys, "convert", str(tmp_path), "-t", "1.25", "--validate")
    assert result.exit_code == 1 and result.stdout == ""
    assert "error: cron.yaml" not in result.stderr
    assert (
        "cron.yaml#0: spec: Additional properties are not allowed ('suspnd' was unexpected)"
        " (Kubernetes 1.25 strict schema)" in result.stderr
    )
    ok = run(capsys, "convert", str(REFERENCE_FIXTURES / "ingress-legacy.in.yaml"), "-t", "1.33", "--validate")
    assert ok.exit_code == 0, ok.stderr


def test_convert_upgrade_and_opt_ins(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(REFERENCE_FIXTURES / "hpa-v1-alpha-annotations.in.yaml", tmp_path / "hpa.yaml")
    fc = (
        "apiVersion: flowcontrol.apiserver.k8s.io/v1beta1\nkind: FlowSchema\nmetadata: {name: f}\n"
        "spec: {priorityLevelConfiguration: {name: p}}\n"
    )
    write(tmp_path, {"fc.yaml": fc})
    upgraded = run(capsys, "convert", str(tmp_path / "fc.yaml"), "-t", "1.25", "--upgrade-to", "1.26")
    assert yamlio.load(upgraded.stdout)["apiVersion"] == "flowcontrol.apiserver.k8s.io/v1beta2"
    assert run(capsys, "convert", str(tmp_path / "fc.yaml"), "-t", "1.25").stdout == fc
    deprecated = run(capsys, "convert", str(tmp_path / "fc.yaml"), "-t", "1.25", "--rewrite-deprecated")
    assert yamlio.load(deprecated.stdout)["apiVersion"] == "flowcontrol.apiserver.k8s.io/v1beta2"
    hpa = run(capsys, "convert", str(tmp_path / "hpa.yaml"), "-t", "1.30", "--upgrade-hpa-v1")
    assert yamlio.load(hpa.stdout)["apiVersion"] == "autoscaling/v2"


def test_convert_reads_standard_input(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(CRON))
    result = run(capsys, "convert", "-", "-t", "1.25")
    assert yamlio.load(result.stdout)["apiVersion"] == "batch/v1"


def test_convert_writes_json_files_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, {"cron.json": json.dumps(yamlio.load(CRON)), "bad.json": "{nope"})
    result = run(capsys, "convert", str(tmp_path / "cron.json"), "-t", "1.25")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["apiVersion"] == "batch/v1"
    bad = run(capsys, "convert", str(tmp_path / "bad.json"), "-t", "1.25")
    assert bad.exit_code == 1 and "bad.json:1:2: JSON syntax error" in bad.stderr


def test_convert_of_yaml_imports_only_what_it_uses(tmp_path: Path) -> None:
    """A new process per run: what only --in-place, --validate, JSON files or scan need is not imported."""
    write(tmp_path, {"cron.yaml": CRON})
    result = run_entry(tmp_path, "convert", "cron.yaml", "-t", "1.25")
    assert result.returncode == 0, result.stderr
    assert "apiVersion: batch/v1\n" in result.stdout
    unused = {
        "tempfile",
        "shutil",
        "jsonschema",
        "kubernetes_validate",
        "argocd_lifecycle.plugin.validate",
        "argocd_lifecycle.plugin.stream.parse",
        "argocd_lifecycle.plugin.rewrite.scan",
        "argocd_lifecycle.plugin.rewrite.files.scan_files",
    }
    assert imported_modules(result) & unused == set()


def test_a_file_past_the_size_limit_or_a_fifo_is_refused_and_the_rest_still_scanned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a repository is hostile: a 10 MiB+ file is not read into memory, and a FIFO cannot hang the run
    write(tmp_path, {"a.yaml": CRON})
    (tmp_path / "big.yaml").write_text("# " + "x" * (yamlio.DEFAULT_LIMITS.max_file_bytes + 10) + "\n")
    os.mkfifo(tmp_path / "pipe.yaml")
    result = run(capsys, "scan", str(tmp_path), "-t", "1.25")
    assert result.exit_code == 1
    assert f"error: {tmp_path.as_posix()}/big.yaml: refused: file is 10.0 MiB, over the 10 MiB limit" in result.stderr
    assert f"error: {tmp_path.as_posix()}/pipe.yaml: refused: not a regular file" in result.stderr
    assert "nightly" in result.stdout and "Traceback" not in result.stderr
    # convert changes nothing when a file cannot be read: the first one is named
    result = run(capsys, "convert", str(tmp_path), "-t", "1.25", "--in-place")
    assert (result.exit_code, result.stdout) == (1, "")
    assert "big.yaml: refused: file is 10.0 MiB" in result.stderr and "Traceback" not in result.stderr
    assert (tmp_path / "a.yaml").read_text() == CRON
