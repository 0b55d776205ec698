"""`ensure-secret`: arguments checked before any API call, existing values never touched.

The calls against a real API server (create, keep, complete, a concurrent writer, RBAC) are in
tests/integration/chart/test_chart_secret_init.py.
"""

from __future__ import annotations

import base64
import subprocess
import sys

import pytest

from argocd_lifecycle.app.secret_init import ALPHABET, SecretSpec, _completed, _random, parse_key, parse_pair
from argocd_lifecycle.errors import UsageError


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "argocd_lifecycle.app", "ensure-secret", *args],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("Bad_Name", "-n", "argocd", "--key", "token"), "error: NAME 'Bad_Name': expected a DNS subdomain name"),
        (("ok", "-n", "Argo CD", "--key", "token"), "error: --namespace 'Argo CD': expected a DNS label"),
        (("ok", "-n", "argocd", "--key", "to/ken"), "error: --key 'to/ken': expected NAME[:LENGTH]"),
        (("ok", "-n", "argocd", "--key", "token:8"), "error: --key 'token:8': expected a LENGTH from 32 to 4096"),
        (("ok", "-n", "argocd", "--key", "token:x"), "error: --key 'token:x': expected a LENGTH"),
        (("ok", "-n", "argocd", "--key", "t", "--label", "part-of"), "error: --label 'part-of': expected KEY=VALUE"),
        (("ok", "-n", "argocd", "--key", "t", "--label", "a=b c"), "error: --label 'a=b c': expected a label value"),
        (("ok", "-n", "argocd", "--key", "t", "--annotation", "=x"), "error: --annotation '=x': expected KEY=VALUE"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2_before_any_connection(args: tuple[str, ...], message: str) -> None:
    # no kubeconfig exists here: reaching the API would be a different error
    result = run(*args, "--kubeconfig", "/nonexistent/kubeconfig")
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(message) and result.stdout == ""


def test_an_unusable_kubeconfig_is_one_error_line_exit_1() -> None:
    result = run("ok", "-n", "argocd", "--key", "token", "--kubeconfig", "/nonexistent/kubeconfig")
    assert result.returncode == 1
    assert result.stderr.startswith("error: kubeconfig /nonexistent/kubeconfig:") and result.stdout == ""


def test_keys_and_pairs() -> None:
    assert parse_key("token") == ("token", 48)
    assert parse_key("hmac:64") == ("hmac", 64)
    assert parse_pair("app.kubernetes.io/part-of=argocd", "--label", label=True) == (
        "app.kubernetes.io/part-of",
        "argocd",
    )
    assert parse_pair("helm.sh/resource-policy=keep", "--annotation", label=False)[1] == "keep"
    # annotation values are free text; label values are not
    assert parse_pair("example.com/note=a b", "--annotation", label=False) == ("example.com/note", "a b")
    with pytest.raises(UsageError):
        parse_pair("example.com/note=a b", "--label", label=True)


def test_random_values_are_alphanumeric_of_the_asked_length_and_differ() -> None:
    values = {_random(48) for _ in range(50)}
    assert len(values) == 50
    assert all(len(v) == 48 and set(v) <= set(ALPHABET) for v in values)


SPEC = SecretSpec(
    namespace="argocd",
    name="tok",
    keys={"token": 48, "hmac": 64},
    labels={"app.kubernetes.io/part-of": "argocd"},
    annotations={"helm.sh/resource-policy": "keep"},
)


def live(data: dict[str, str], labels: dict[str, str], annotations: dict[str, str]) -> dict[str, object]:
    meta = {"name": "tok", "namespace": "argocd", "resourceVersion": "7", "labels": labels, "annotations": annotations}
    return {"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": meta, "data": data}


def test_a_complete_secret_is_left_alone() -> None:
    data = {"token": "a2VwdA==", "hmac": "a2VwdA==", "other": "eA=="}
    keys, changed, body = _completed(SPEC, live(data, SPEC.labels, SPEC.annotations))
    assert (keys, changed) == ([], False)
    assert body["data"] == data


def test_missing_and_empty_keys_are_added_and_nothing_else_changes() -> None:
    keys, changed, body = _completed(SPEC, live({"token": "", "other": "eA=="}, {"team": "a"}, {}))
    assert keys == ["token", "hmac"] and changed
    assert body["data"]["other"] == "eA=="
    assert len(base64.b64decode(body["data"]["token"])) == 48 and len(base64.b64decode(body["data"]["hmac"])) == 64
    # the update carries the resourceVersion that was read: a concurrent writer gets a 409, not lost
    assert body["metadata"]["resourceVersion"] == "7"
    assert body["metadata"]["labels"] == {"team": "a", "app.kubernetes.io/part-of": "argocd"}
    assert body["metadata"]["annotations"] == {"helm.sh/resource-policy": "keep"}
