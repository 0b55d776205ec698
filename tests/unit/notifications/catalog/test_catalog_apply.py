"""`argocd-lifecycle notifications apply`: the manifest is checked before anything reaches a cluster.

Each refusal is one `error:` line naming the file and the field, exit code 1 (2 for a bad flag), no
traceback, and no connection attempted (the kubeconfig given does not exist)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from argocd_lifecycle.app.cli import main
from argocd_lifecycle.notifications.catalog.apply import ConfigMapKeys, load

GOOD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "argocd-notifications-cm", "namespace": "argocd"},
    "data": {"trigger.on-cluster-unreachable": "- when: 'true'\n", "template.cluster-unreachable": "message: x\n"},
}


def run(capsys: pytest.CaptureFixture[str], path: Path, *args: str) -> tuple[int, str, str]:
    """The console entry point, as the Job runs it."""
    with pytest.raises(SystemExit) as exited:
        main(["notifications", "apply", "--filename", str(path), "--kubeconfig", str(path.parent / "missing"), *args])
    out, err = capsys.readouterr()
    return int(exited.value.code or 0), out, err


def apply(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "apply.yaml"
    path.write_text(text)
    return run(capsys, path, *args)


def with_(**changes: Any) -> str:
    return yaml.safe_dump({**GOOD, **changes})


def test_a_good_manifest_is_read_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "apply.yaml"
    path.write_text(yaml.safe_dump(GOOD))
    keys = load(path)
    assert keys == ConfigMapKeys("argocd", "argocd-notifications-cm", GOOD["data"], {}, {})
    assert keys.body() == GOOD


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (yaml.safe_dump(["a"]), "expected one ConfigMap, found list"),
        (with_(kind="Secret"), "expected apiVersion v1 and kind ConfigMap"),
        (with_(binaryData={"x": "eA=="}), "refused: field 'binaryData'"),
        (with_(immutable=True), "refused: field 'immutable'"),
        (with_(metadata={**GOOD["metadata"], "managedFields": []}), "refused: metadata.managedFields"),
        (with_(metadata={"name": "Bad_Name", "namespace": "argocd"}), "metadata.name: expected a DNS subdomain"),
        (with_(metadata={"name": "cm"}), "metadata.namespace: expected a DNS label"),
        (with_(metadata={"name": "cm", "namespace": "a.b"}), "metadata.namespace: expected a DNS label"),
        (with_(data={}), "data: no keys to apply"),
        (with_(data={"count": 3}), "data: expected a mapping of strings to strings"),
        (with_(data={"a/b": "x"}), "data: key 'a/b': expected [-._a-zA-Z0-9]"),
        (with_(metadata={**GOOD["metadata"], "labels": {"a": 1}}), "metadata.labels: expected a mapping of strings"),
        ("kind: [\n", "YAML syntax error"),
        (yaml.safe_dump(GOOD) + "---\n" + yaml.safe_dump(GOOD), "YAML syntax error"),
        ("a: &x 1\nb: *x\n", "refused"),  # aliases have no place in a ConfigMap
    ],
)
def test_a_bad_manifest_is_refused_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    code, out, err = apply(capsys, tmp_path, text)
    assert (code, out) == (1, "")
    assert err.startswith(f"error: {tmp_path / 'apply.yaml'}") and message in err, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_the_namespace_can_come_from_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "apply.yaml"
    path.write_text(with_(metadata={"name": "argocd-notifications-cm"}))  # what `notifications render` writes
    assert load(path, "argocd").namespace == "argocd"
    path.write_text(yaml.safe_dump(GOOD))
    code, _, err = run(capsys, path, "--namespace", "other")
    assert code == 1 and "metadata.namespace 'argocd' is not the --namespace 'other'" in err


def test_a_manifest_over_the_configmap_limit_is_not_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = apply(capsys, tmp_path, with_(data={"big": "x" * (1024 * 1024)}))
    assert code == 1 and "over the 1 MiB limit" in err


def test_a_file_that_is_not_text_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "apply.yaml"
    path.write_bytes(b"\xff\xfe")
    code, _, err = run(capsys, path)
    assert code == 1 and "not UTF-8 text" in err


def test_a_missing_file_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, tmp_path / "nothing.yaml")
    assert code == 1 and err == f"error: {tmp_path / 'nothing.yaml'}: cannot be read (No such file or directory)\n"


@pytest.mark.parametrize("manager", ["", "x" * 129, "a\nb", "tab\there"])
def test_a_bad_field_manager_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path, manager: str) -> None:
    code, out, err = apply(capsys, tmp_path, yaml.safe_dump(GOOD), "--field-manager", manager)
    assert (code, out) == (2, "")
    assert err.startswith("error: --field-manager") and "printable characters" in err


def test_a_good_manifest_then_needs_a_usable_kubeconfig(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = apply(capsys, tmp_path, yaml.safe_dump(GOOD))
    assert code == 1 and err.startswith(f"error: kubeconfig {tmp_path / 'missing'}")
