"""The --capi flags: read once, each bad value one usage error naming the flag."""

from __future__ import annotations

import pytest

from argocd_lifecycle.app.cli import main
from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.capi.settings import CapiSettings


def settings(**kw: object) -> CapiSettings | None:
    options: dict[str, object] = {"capi": True, "namespaces": ("team-a",), "copy_labels": (), "kubernetes": True, **kw}
    return CapiSettings.from_options(**options)  # type: ignore[arg-type]


def test_off_unless_asked() -> None:
    assert settings(capi=False, namespaces=()) is None
    assert settings() == CapiSettings(("team-a",), ())


def test_namespaces_and_labels_are_kept_in_order_without_repeats() -> None:
    s = settings(namespaces=["team-a", "team-b", "team-a"], copy_labels=["env", "example.com/*", "env"])
    assert s == CapiSettings(("team-a", "team-b"), ("env", "example.com/*"))


def test_server_lists_and_the_service_address_of_the_pod_are_read_once() -> None:
    s = settings(
        allow_servers=["10.0.0.0/8", "*.clusters.example", "127.0.0.1"],
        deny_servers=["10.1.0.0/16", "API.Mgmt.Example."],
        environ={"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"},
    )
    assert s is not None
    assert [r.text for r in s.servers.allow] == ["10.0.0.0/8", "*.clusters.example", "127.0.0.1"]
    assert [r.text for r in s.servers.deny] == ["10.1.0.0/16", "api.mgmt.example"]
    assert s.servers.management == frozenset({("10.96.0.1", 443)})
    ipv6 = settings(environ={"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "6443"})
    assert ipv6 is not None and ipv6.servers.management == frozenset({("fd00::1", 6443)})


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"capi": False}, "--capi-namespace, --capi-copy-label and --capi-*-server need --capi"),
        ({"capi": False, "namespaces": (), "deny_servers": ["10.0.0.0/8"]}, "need --capi"),
        ({"kubernetes": False}, "--capi needs Kubernetes: it cannot be combined with --clusters-from"),
        ({"namespaces": ()}, "--capi needs at least one --capi-namespace: the generator reads the kubeconfig"),
        ({"namespaces": ["Team_A"]}, "--capi-namespace: 'Team_A' is not a namespace name"),
        ({"namespaces": ["a" * 64]}, "is not a namespace name"),
        ({"copy_labels": ["env value"]}, "--capi-copy-label: 'env value' is not a label key"),
        ({"copy_labels": ["a/b/c"]}, "is not a label key"),
        ({"copy_labels": ["*"]}, "--capi-copy-label: '*' would copy every label a tenant sets"),
        ({"copy_labels": ["env*"]}, "--capi-copy-label: 'env*' is not a label key (or 'prefix/*')"),
        ({"copy_labels": ["argocd.argoproj.io/secret-type"]}, "names Argo CD's or argocd-lifecycle's own labels"),
        ({"copy_labels": ["argocd-lifecycle.io/*"]}, "names Argo CD's or argocd-lifecycle's own labels"),
        ({"allow_servers": ["10.0.0.0/33"]}, "--capi-allow-server: '10.0.0.0/33' is not a CIDR, an IP address"),
        ({"deny_servers": ["https://api.example"]}, "--capi-deny-server: 'https://api.example' is not a CIDR"),
        ({"deny_servers": ["127.1"]}, "--capi-deny-server: '127.1' is not a CIDR"),
    ],
)
def test_bad_values_are_one_usage_error(kw: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")) as err:
        settings(**kw)
    assert err.value.exit_code == 2


def test_the_serve_command_refuses_capi_without_a_namespace_before_starting(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["generator", "serve", "--capi", "--insecure-no-auth"])
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: --capi needs at least one --capi-namespace")


def test_the_serve_command_refuses_capi_with_files_before_starting(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["generator", "serve", "--capi", "--clusters-from", ".", "--insecure-no-auth"])
    assert exited.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "error: --capi needs Kubernetes: it cannot be combined with --clusters-from\n"
