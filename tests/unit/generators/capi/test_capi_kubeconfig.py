"""CAPI's kubeconfig Secret -> server and Argo CD config; hostile kubeconfigs are refused without leaking."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
import yaml

from argocd_lifecycle.generators.capi.kubeconfig import InvalidKubeconfig, parse_kubeconfig
from tests.harness.capi import fixture, kubeconfig, kubeconfig_secret
from tests.harness.pki import CertificateAuthority

CA = CertificateAuthority("workload-1-ca")
ADMIN = CA.client("kubernetes-admin", "system:masters")
SERVER = "https://127.0.0.1:6443"
TOKEN = "s3cr3t-token-value"
WHERE = "Secret capi-clusters/workload-1-kubeconfig"


def secret(config: dict[str, Any] | str) -> dict[str, Any]:
    return kubeconfig_secret(fixture("cluster-topology"), config)


def certs() -> dict[str, Any]:
    return kubeconfig("workload-1", SERVER, CA.cert_pem, cert_pem=ADMIN.cert_pem, key_pem=ADMIN.key_pem)


def parse(config: dict[str, Any] | str) -> Any:
    return parse_kubeconfig(secret(config), where=WHERE)  # type: ignore[arg-type]


def refused(config: dict[str, Any] | str) -> str:
    with pytest.raises(InvalidKubeconfig) as err:
        parse(config)
    message = err.value.message
    assert message.startswith(WHERE + ": ")
    for value in (TOKEN, ADMIN.key_pem.decode(), base64.b64encode(ADMIN.key_pem).decode()):
        assert value not in message and value not in repr(err.value)
    return message[len(WHERE) + 2 :]


def test_capi_client_certificate_kubeconfig_becomes_argo_cd_tls_config() -> None:
    endpoint = parse(certs())
    assert endpoint.server == SERVER
    tls = endpoint.config["tlsClientConfig"]
    assert base64.b64decode(tls["caData"]) == CA.cert_pem
    assert base64.b64decode(tls["certData"]) == ADMIN.cert_pem
    assert base64.b64decode(tls["keyData"]) == ADMIN.key_pem
    assert tls["insecure"] is False and "bearerToken" not in endpoint.config


def test_a_token_kubeconfig_and_the_tls_options() -> None:
    doc = kubeconfig("workload-1", SERVER + "/", CA.cert_pem, token=TOKEN)
    doc["clusters"][0]["cluster"]["tls-server-name"] = "api.workload-1.internal"
    endpoint = parse(doc)
    assert endpoint.server == SERVER  # the trailing slash is trimmed, as Argo CD does
    assert endpoint.config["bearerToken"] == TOKEN
    assert endpoint.config["tlsClientConfig"]["serverName"] == "api.workload-1.internal"


def test_the_endpoint_repr_holds_no_credentials() -> None:
    text = repr(parse(kubeconfig("workload-1", SERVER, CA.cert_pem, token=TOKEN)))
    assert TOKEN not in text and "caData" not in text


def test_json_kubeconfigs_and_a_single_context_without_current_context_are_read() -> None:
    doc = certs()
    del doc["current-context"]
    assert parse(json.dumps(doc)).server == SERVER


@pytest.mark.parametrize(
    ("where", "key", "value", "problem"),
    [
        ("clusters", "certificate-authority", "/etc/shadow", "certificate-authority (a CA file path) is not supported"),
        ("clusters", "proxy-url", "http://proxy:3128", "proxy-url (a proxy) is not supported"),
        ("users", "client-certificate", "/var/run/secrets/x.crt", "client-certificate (a certificate file path)"),
        ("users", "client-key", "/var/run/secrets/x.key", "client-key (a key file path)"),
        ("users", "tokenFile", "/var/run/secrets/kubernetes.io/serviceaccount/token", "tokenFile (a token file path)"),
        ("users", "exec", {"command": "/bin/sh", "args": ["-c", "id"]}, "exec (an exec credential plugin)"),
        ("users", "auth-provider", {"name": "gcp"}, "auth-provider (an auth provider)"),
        ("users", "username", "admin", "username (basic auth)"),
        ("users", "as", "system:admin", "as (impersonation)"),
    ],
)
def test_anything_that_is_not_inline_data_is_refused(where: str, key: str, value: Any, problem: str) -> None:
    doc = certs()
    doc[where][0][where[:-1]][key] = value
    assert refused(doc).startswith(problem)


@pytest.mark.parametrize(
    ("server", "problem"),
    [
        ("ftp://127.0.0.1:6443", "server must be an https:// URL with a host"),
        ("https://", "server must be an https:// URL with a host"),
        ("https://admin:pw@127.0.0.1:6443", "server must not carry credentials, a query or a fragment"),
        ("https://127.0.0.1:6443/?x=1", "server must not carry credentials, a query or a fragment"),
        ("https://127.0.0.1:6443\n--kubeconfig=/etc/x", "server is not a URL"),
        ("https://127.0.0.1:99999", "server is not a URL"),
        ("https://" + "a" * 3000, "server is not a URL"),
        ("", "the cluster has no server"),
        # spellings that would reach an address the server checks never saw
        ("https://%6bubernetes.default.svc", "server's host must not hold percent-escapes"),
        ("https://[fe80::1%25eth0]:6443", "server's host must not hold percent-escapes"),
        ("https://127.1:6443", "server's host is an IP address in a non-canonical form"),
        ("https://2130706433", "server's host is an IP address in a non-canonical form"),
        ("https://0x7f.0.0.1", "server's host is an IP address in a non-canonical form"),
        ("https://0177.0.0.1", "server's host is an IP address in a non-canonical form"),
        ("https://kübernetes.default.svc", "server is not a URL"),
        ("https://under_score.example", "server's host is neither a host name nor an IP address"),
        ("https://api.example/../x", "server's path must be plain segments (no escapes, empty, '.' or '..' segments)"),
        ("https://api.example/a%2Fb", "server's path must be plain segments (no escapes, empty, '.' or '..' segments)"),
    ],
)
def test_the_server_must_be_a_plain_url(server: str, problem: str) -> None:
    doc = certs()
    doc["clusters"][0]["cluster"]["server"] = server
    assert refused(doc) == problem


def test_credentials_must_be_present_and_whole() -> None:
    doc = certs()
    del doc["users"][0]["user"]["client-key-data"]
    assert refused(doc) == "client-certificate-data and client-key-data go together"
    doc["users"][0]["user"] = {}
    assert refused(doc) == "the user has neither a client certificate nor a token"
    injected = 'x"}, "execProviderConfig": {"command": "sh"}, "y": {"'
    for token in (TOKEN + "\nX-Evil: 1", injected, "to\\u006ben", "tōken"):
        doc["users"][0]["user"] = {"token": token}
        assert refused(doc) == "token must be a bearer token (letters, digits and -._~+/, then '=')"


def test_pem_data_must_be_base64_of_pem() -> None:
    doc = certs()
    doc["clusters"][0]["cluster"]["certificate-authority-data"] = "%%%"
    assert refused(doc) == "certificate-authority-data is not base64"
    doc["clusters"][0]["cluster"]["certificate-authority-data"] = base64.b64encode(b"not a cert").decode()
    assert refused(doc) == "certificate-authority-data is not PEM"


@pytest.mark.parametrize(
    ("mutate", "problem"),
    [
        (lambda d: d.update({"current-context": "nope"}), "no context named 'nope'"),
        (lambda d: d["contexts"][0]["context"].update({"user": "other"}), "no user named 'other'"),
        (lambda d: d.update({"clusters": "x"}), "clusters must be a list"),
        (lambda d: d["clusters"][0]["cluster"].update({"insecure-skip-tls-verify": "yes"}),
         "insecure-skip-tls-verify or tls-server-name has the wrong type"),
        (lambda d: d["clusters"][0]["cluster"].update({"tls-server-name": 'api"\\u0022'}),
         "tls-server-name is not a host name or an IP address"),
    ],
)  # fmt: skip
def test_a_kubeconfig_that_does_not_hang_together(mutate: Any, problem: str) -> None:
    doc = certs()
    mutate(doc)
    assert refused(doc) == problem


def test_the_secret_itself_must_be_capis() -> None:
    wrong_type = secret(certs()) | {"type": "Opaque"}
    with pytest.raises(InvalidKubeconfig, match=r"type is 'Opaque', not cluster\.x-k8s\.io/secret"):
        parse_kubeconfig(wrong_type, where=WHERE)  # type: ignore[arg-type]
    assert refused("- just\n- a list\n") == "data.value is not a kubeconfig"
    assert refused("clusters: [unclosed").startswith("data.value is not YAML (")
    bad = secret(certs())
    bad["data"]["value"] = "not base64!"
    with pytest.raises(InvalidKubeconfig, match=r"data\.value is not base64 of UTF-8 text"):
        parse_kubeconfig(bad, where=WHERE)  # type: ignore[arg-type]


def test_an_oversized_kubeconfig_is_refused_before_it_is_decoded() -> None:
    doc = certs()
    doc["padding"] = "x" * (300 * 1024)
    assert refused(doc) == "data.value is larger than 256 KiB"


def test_an_alias_bomb_is_refused_not_expanded() -> None:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]"
              for i in range(1, 20)]  # fmt: skip
    bomb = "\n".join(lines) + "\n" + yaml.safe_dump(certs())
    assert refused(bomb) == "data.value is not YAML (expands to more than 64 MiB (aliases written out))"
