"""`argocd-lifecycle notifications apply`: the manifest is checked before anything reaches a cluster.

Each refusal is one `error:` line naming the file and the field, exit code 1 (2 for a bad flag), no
traceback, and no connection attempted (the kubeconfig given does not exist)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from argocd_lifecycle.app.cli import main
from argocd_lifecycle.notifications.catalog.apply import MAX_NAMESPACES, ConfigMapKeys, load_all

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
    (keys,) = load_all(path)
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
        (with_(metadata={"name": "cm", "namespace": "argocd\n"}), "metadata.namespace: expected a DNS label"),
        (with_(metadata={"name": "cm\n", "namespace": "argocd"}), "metadata.name: expected a DNS subdomain"),
        (with_(data={"key\n": "x"}), "data: key 'key\\n': expected [-._a-zA-Z0-9]"),
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
    assert [k.namespace for k in load_all(path, ["argocd"])] == ["argocd"]
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


def test_one_manifest_goes_to_each_namespace_given(tmp_path: Path) -> None:
    path = tmp_path / "apply.yaml"
    path.write_text(with_(metadata={"name": "argocd-notifications-cm"}))  # the chart's apply.yaml
    targets = load_all(path, ["argocd", "team-a", "team-b"])
    assert [(k.namespace, k.name) for k in targets] == [
        ("argocd", "argocd-notifications-cm"),
        ("team-a", "argocd-notifications-cm"),
        ("team-b", "argocd-notifications-cm"),
    ]
    assert all(k.data == GOOD["data"] for k in targets)
    assert targets[1].body()["metadata"] == {"name": "argocd-notifications-cm", "namespace": "team-a"}


@pytest.mark.parametrize(
    "namespace",
    [
        "",
        "Team-A",  # upper case
        "team_a",
        "team.a",  # a subdomain, not a label
        "-team",
        "team-",
        "../kube-system",
        "team a",
        "team-a\n",
        "t\u0435am",  # Cyrillic e
        "*",  # every namespace: the catalog goes to named ConfigMaps only
        "x" * 64,
    ],
)
def test_a_hostile_namespace_is_a_usage_error_before_anything(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, namespace: str
) -> None:
    code, out, err = apply(capsys, tmp_path, with_(metadata={"name": "cm"}), "-n", "argocd", "-n", namespace)
    assert (code, out) == (2, "")
    assert err.startswith("error: --namespace ") and "expected a namespace name (a DNS label)" in err, err
    assert len(err.splitlines()) == 1 and len(err) < 200 and "Traceback" not in err


def test_a_namespace_given_twice_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = apply(
        capsys, tmp_path, with_(metadata={"name": "cm"}), "-n", "team-a", "-n", "argocd", "-n", "team-a"
    )
    assert (code, err) == (2, "error: --namespace 'team-a': given twice\n")


def test_the_namespaces_are_bounded(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    many = [arg for i in range(MAX_NAMESPACES + 1) for arg in ("-n", f"team-{i}")]
    code, _, err = apply(capsys, tmp_path, with_(metadata={"name": "cm"}), *many)
    assert (code, err) == (2, f"error: --namespace: {MAX_NAMESPACES + 1} given, at most {MAX_NAMESPACES}\n")
    fine = load_all(tmp_path / "apply.yaml", [f"team-{i}" for i in range(MAX_NAMESPACES)])
    assert len(fine) == MAX_NAMESPACES


def test_a_manifest_naming_its_namespace_goes_nowhere_else(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = apply(capsys, tmp_path, yaml.safe_dump(GOOD), "-n", "argocd", "-n", "team-a")
    assert (code, out) == (1, "")
    assert "metadata.namespace 'argocd' is not the --namespace 'team-a'" in err and "Traceback" not in err
