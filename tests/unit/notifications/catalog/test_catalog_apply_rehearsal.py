"""`notifications apply -n A -n B ...`: every apply is rehearsed as a server-side dry run before any is
written, so a namespace the Job may not write (RBAC), a conflict or a missing namespace stops the run
with nothing applied, and the error names that namespace's ConfigMap."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from argocd_lifecycle.app.cli import main
from argocd_lifecycle.kube.client import KubeConflict, KubeError
from argocd_lifecycle.notifications.catalog import cli

MANIFEST = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "argocd-notifications-cm"},
    "data": {"trigger.on-cluster-unreachable": "- when: 'true'\n", "template.cluster-unreachable": "message: x\n"},
}


class FakeCore:
    def patch_namespaced_config_map(self, *args: Any, **kwargs: Any) -> None:  # never called: FakeKube.call
        raise AssertionError("called outside Kube.call")


class FakeKube:
    """Records each patch (namespace, dry run or not); refuses the namespaces in ``refuse``."""

    def __init__(self, refuse: dict[str, KubeError]) -> None:
        self.core = FakeCore()
        self.refuse = refuse
        self.calls: list[tuple[str, bool]] = []

    def call(self, what: str, fn: Any, name: str, namespace: str, body: dict[str, Any], **kwargs: Any) -> Any:
        assert fn == self.core.patch_namespaced_config_map
        assert kwargs["_content_type"] == "application/apply-patch+yaml" and kwargs["field_manager"] == "fm"
        assert body["metadata"] == {"name": name, "namespace": namespace}
        dry = kwargs.get("dry_run") == "All"
        self.calls.append((namespace, dry))
        if namespace in self.refuse:
            exc = self.refuse[namespace]
            raise type(exc)(f"{what}: {exc}", status=exc.status)
        return {"data": {**body["data"], "context": "x"}}


def run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kube: FakeKube, *args: str
) -> tuple[int, str, str]:
    path = tmp_path / "apply.yaml"
    path.write_text(yaml.safe_dump(MANIFEST))
    monkeypatch.setattr(cli, "connect", lambda settings: kube)
    try:
        main(["notifications", "apply", "-f", str(path), "--field-manager", "fm", *args])
        code = 0
    except SystemExit as exited:
        code = int(exited.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


NAMESPACES = ("-n", "argocd", "-n", "team-a", "-n", "team-b")


def test_every_namespace_is_rehearsed_then_applied(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kube = FakeKube({})
    code, out, err = run(capsys, monkeypatch, tmp_path, kube, *NAMESPACES)
    assert (code, err) == (0, "")
    order = ["argocd", "team-a", "team-b"]
    assert kube.calls == [(ns, True) for ns in order] + [(ns, False) for ns in order]
    assert out.splitlines() == [
        f"applied 2 keys to ConfigMap {ns}/argocd-notifications-cm (field manager fm; it holds 3 keys)" for ns in order
    ]


@pytest.mark.parametrize(
    ("refused", "message"),
    [
        (KubeError("HTTP 403: configmaps is forbidden", status=403), "HTTP 403"),
        (KubeError('HTTP 404: namespaces "team-b" not found', status=404), "HTTP 404"),
        (KubeConflict("HTTP 409: Apply failed with 1 conflict", status=409), "--force-conflicts"),
    ],
)
def test_one_namespace_that_would_fail_stops_the_run_before_any_write(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    refused: KubeError,
    message: str,
) -> None:
    kube = FakeKube({"team-b": refused})
    code, out, err = run(capsys, monkeypatch, tmp_path, kube, *NAMESPACES)
    assert (code, out) == (1, "")
    assert kube.calls == [("argocd", True), ("team-a", True), ("team-b", True)]  # dry runs only
    assert err.startswith("error: apply 2 keys to ConfigMap team-b/argocd-notifications-cm as fm (dry run: nothing")
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_one_namespace_is_applied_without_a_rehearsal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    kube = FakeKube({})
    code, out, _ = run(capsys, monkeypatch, tmp_path, kube, "-n", "team-a")
    assert code == 0 and kube.calls == [("team-a", False)]  # one apply is one request: all or nothing
    assert out.startswith("applied 2 keys to ConfigMap team-a/argocd-notifications-cm")


def test_a_write_that_fails_after_the_rehearsal_names_it_and_what_was_applied(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    class Racing(FakeKube):  # someone takes a key between the dry run and the write
        def call(self, what: str, fn: Any, name: str, namespace: str, body: dict[str, Any], **kwargs: Any) -> Any:
            if namespace == "team-a" and "dry_run" not in kwargs:
                self.refuse = {"team-a": KubeConflict("HTTP 409: conflict", status=409)}
            return super().call(what, fn, name, namespace, body, **kwargs)

    kube = Racing({})
    code, out, err = run(capsys, monkeypatch, tmp_path, kube, *NAMESPACES)
    assert code == 1
    assert out.splitlines() == [
        "applied 2 keys to ConfigMap argocd/argocd-notifications-cm (field manager fm; it holds 3 keys)"
    ]
    assert err.startswith("error: apply 2 keys to ConfigMap team-a/argocd-notifications-cm as fm: ")
    assert ("team-b", False) not in kube.calls
