"""The --capi flags: read once, each bad value one usage error naming the flag."""

from __future__ import annotations

import pytest

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.capi.settings import CapiSettings


def settings(**kw: object) -> CapiSettings | None:
    options: dict[str, object] = {"capi": True, "namespaces": (), "copy_labels": (), "kubernetes": True, **kw}
    return CapiSettings.from_options(**options)  # type: ignore[arg-type]


def test_off_unless_asked() -> None:
    assert settings(capi=False) is None
    assert settings() == CapiSettings((), ())


def test_namespaces_and_labels_are_kept_in_order_without_repeats() -> None:
    s = settings(namespaces=["team-a", "team-b", "team-a"], copy_labels=["env", "example.com/*", "env"])
    assert s == CapiSettings(("team-a", "team-b"), ("env", "example.com/*"))


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"capi": False, "namespaces": ["a"]}, "--capi-namespace and --capi-copy-label need --capi"),
        ({"kubernetes": False}, "--capi needs Kubernetes: it cannot be combined with --clusters-from"),
        ({"namespaces": ["Team_A"]}, "--capi-namespace: 'Team_A' is not a namespace name"),
        ({"namespaces": ["a" * 64]}, "is not a namespace name"),
        ({"copy_labels": ["env value"]}, "--capi-copy-label: 'env value' is not a label key"),
        ({"copy_labels": ["a/b/c"]}, "is not a label key"),
        ({"copy_labels": ["argocd.argoproj.io/secret-type"]}, "names Argo CD's or argocd-lifecycle's own labels"),
        ({"copy_labels": ["argocd-lifecycle.io/*"]}, "names Argo CD's or argocd-lifecycle's own labels"),
    ],
)
def test_bad_values_are_one_usage_error(kw: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace("*", r"\*")) as err:
        settings(**kw)
    assert err.value.exit_code == 2


def test_the_serve_command_refuses_capi_with_files_before_starting(capsys: pytest.CaptureFixture[str]) -> None:
    from argocd_lifecycle.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["generator", "serve", "--capi", "--clusters-from", ".", "--insecure-no-auth"])
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "error: --capi needs Kubernetes: it cannot be combined with --clusters-from\n"
