"""Parsing Argo CD cluster Secrets as Argo CD does: required keys, base64 data, config JSON, secrets out of reprs."""

from __future__ import annotations

import json

import pytest

from argocd_lifecycle.cluster_secrets import InvalidClusterSecret, parse_secret
from tests.integration.generators.loopback import CertAuthority
from tests.unit.core.cluster_secret_manifests import b64, secret

CA = CertAuthority("unit-ca", days=30)


def test_parse_data_form_like_argo_cd() -> None:
    cfg = {
        "bearerToken": "tok",
        "tlsClientConfig": {"insecure": False, "serverName": "api.internal", "caData": b64(CA.pem)},
        "proxyUrl": "http://proxy:3128",
    }
    parsed = parse_secret(
        secret(
            data={
                "name": b64("prod-1"),
                "server": b64("https://prod-1.example:6443/"),
                "config": b64(json.dumps(cfg)),
                "namespaces": b64(" a, b ,,c"),
                "clusterResources": b64("true"),
                "project": b64("team-a"),
            }
        )
    )
    assert (parsed.name, parsed.server, parsed.project) == ("prod-1", "https://prod-1.example:6443", "team-a")
    assert parsed.namespaces == ("a", "b", "c") and parsed.cluster_resources
    # kept as on the Secret, as Argo CD's Cluster generator passes them to templates
    assert parsed.labels == {"env": "prod", "argocd.argoproj.io/secret-type": "cluster"}
    assert parsed.annotations["team"] == "a"
    assert "kubectl.kubernetes.io/last-applied-configuration" in parsed.annotations
    creds = parsed.credentials
    assert creds.bearer_token == "tok" and creds.server_name == "api.internal" and creds.ca_pem == CA.pem
    assert creds.proxy_url == "http://proxy:3128" and not creds.unsupported
    assert parsed.certificate_expires_at == CA.cert.not_valid_after_utc


def test_string_data_wins_and_secrets_stay_out_of_reprs() -> None:
    parsed = parse_secret(
        secret(
            data={"name": b64("old"), "server": b64("https://x")},
            string_data={"name": "new", "config": json.dumps({"bearerToken": "s3cr3t", "password": "pw"})},
        )
    )
    assert parsed.name == "new" and parsed.server == "https://x"
    assert "s3cr3t" not in repr(parsed) and "pw" not in repr(parsed.credentials)


def test_fingerprint_changes_exactly_with_the_config() -> None:
    a = parse_secret(secret(string_data={"name": "a", "server": "https://a", "config": '{"bearerToken": "1"}'}))
    b = parse_secret(secret(string_data={"name": "a", "server": "https://a", "config": '{ "bearerToken" : "1" }'}))
    c = parse_secret(secret(string_data={"name": "a", "server": "https://a", "config": '{"bearerToken": "2"}'}))
    assert a.credentials.fingerprint == b.credentials.fingerprint != c.credentials.fingerprint


@pytest.mark.parametrize(
    ("string_data", "message"),
    [
        ({"server": "https://x"}, "data.name is missing"),
        ({"name": "x"}, "data.server is missing"),
        ({"name": "x", "server": "ftp://x"}, "is not an http(s) URL"),
        ({"name": "x", "server": "https://x", "config": "{oops"}, "config is not JSON"),
        ({"name": "x", "server": "https://x", "config": "[]"}, "config must be a JSON object"),
        ({"name": "x", "server": "https://x", "config": '{"tlsClientConfig": {"insecure": "yes"}}'}, "insecure"),
        (
            {"name": "x", "server": "https://x", "config": '{"tlsClientConfig": {"caData": "%%%"}}'},
            "caData is not base64",
        ),
        (
            {"name": "x", "server": "https://x", "config": json.dumps({"tlsClientConfig": {"caData": b64("nope")}})},
            "caData: not a PEM certificate",
        ),
        ({"name": "x", "server": "https://x", "config": '{"bearerToken": 5}'}, "config.bearerToken must be a string"),
    ],
)
def test_bad_secrets_name_the_secret_and_field(string_data: dict, message: str) -> None:
    with pytest.raises(InvalidClusterSecret) as exc:
        parse_secret(secret(string_data=string_data))
    assert message in exc.value.message and "argocd/cluster-c1" in exc.value.message


def test_bad_base64_in_data() -> None:
    with pytest.raises(InvalidClusterSecret, match=r"data\.name is not base64"):
        parse_secret(secret(data={"name": "***", "server": b64("https://x")}))
