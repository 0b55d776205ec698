"""Hostile values in every field of a cluster Secret: each is parsed or one InvalidClusterSecret naming the
Secret and the field, never another exception and never the value itself (issue 24, finding 2: a non-ASCII
character in a base64 field raised a bare ValueError that stopped the inventory's listing)."""

from __future__ import annotations

import base64
import json
import ssl
from typing import Any

import pytest

from argocd_lifecycle.cluster_secrets import (
    ClusterIdentity,
    ClusterSecret,
    InvalidClusterSecret,
    parse_secret,
    read_cluster_secrets,
    scan_cluster_secrets,
)
from tests.integration.generators.loopback import CertAuthority
from tests.unit.core.cluster_secret_manifests import b64, secret

CA = CertAuthority("hostile-ca", days=30)
SECRET_TEXT = "s3cr3t-\u00e9"  # in a value: a message or repr holding it leaks the value
HOSTILE = {
    "non-ASCII": SECRET_TEXT,
    "NUL": "s3cr3t\x00x",
    "newline": "s3cr3t\nx",
    "oversized": "s3cr3t" + "x" * (2 * 1024 * 1024),
}
KEYS = ("name", "server", "config", "namespaces", "project", "clusterResources")
GOOD = {"name": "prod", "server": "https://prod.example:6443"}


def _outcome(obj: dict[str, Any]) -> ClusterSecret | InvalidClusterSecret:
    """Parsed, or the one error we allow; anything else fails the test by raising."""
    try:
        return parse_secret(obj)
    except InvalidClusterSecret as exc:
        assert "argocd/cluster-c1" in exc.message
        assert "s3cr3t" not in exc.message and len(exc.message) < 400
        return exc


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("key", KEYS)
def test_hostile_text_in_every_string_data_value(key: str, kind: str) -> None:
    _outcome(secret(string_data={**GOOD, key: HOSTILE[kind]}))


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("key", KEYS)
def test_hostile_text_in_every_data_value(key: str, kind: str) -> None:
    _outcome(secret(data={**{k: b64(v) for k, v in GOOD.items()}, key: b64(HOSTILE[kind])}))


@pytest.mark.parametrize(
    "raw",
    ["\u00e9", "cHJvZA\u00e9=", "cHJvZA==\x00", b64(b"\xff\xfe"), "%%%", "x" * (2 * 1024 * 1024), 5, None, ["a"]],
    ids=["non-ASCII", "non-ASCII-tail", "NUL", "not-UTF-8", "not-base64", "oversized", "int", "null", "list"],
)
@pytest.mark.parametrize("key", KEYS)
def test_what_is_not_base64_in_every_data_value(key: str, raw: Any) -> None:
    """The attack of the issue: a non-ASCII character in base64 was a ValueError, not binascii.Error."""
    found = _outcome(secret(data={**{k: b64(v) for k, v in GOOD.items()}, key: raw}))
    if raw is not None:
        assert isinstance(found, InvalidClusterSecret) and f"data.{key}" in found.message


def _with_config(config: dict[str, Any]) -> dict[str, Any]:
    return secret(string_data={**GOOD, "config": json.dumps(config)})


CONFIG_FIELDS = [
    ("bearerToken",),
    ("username",),
    ("password",),
    ("proxyUrl",),
    ("tlsClientConfig", "serverName"),
    ("tlsClientConfig", "caData"),
    ("tlsClientConfig", "certData"),
    ("tlsClientConfig", "keyData"),
    ("execProviderConfig",),
    ("awsAuthConfig",),
    ("tlsClientConfig",),
]


def _nested(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    return {path[0]: value} if len(path) == 1 else {path[0]: _nested(path[1:], value)}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("path", CONFIG_FIELDS, ids=".".join)
def test_hostile_text_in_every_config_field(path: tuple[str, ...], kind: str) -> None:
    _outcome(_with_config(_nested(path, HOSTILE[kind])))


@pytest.mark.parametrize("kind", sorted(HOSTILE))
@pytest.mark.parametrize("key", ["caData", "certData", "keyData"])
def test_base64_of_hostile_bytes_in_every_pem_field(key: str, kind: str) -> None:
    _outcome(_with_config({"tlsClientConfig": {key: b64(HOSTILE[kind])}}))


@pytest.mark.parametrize("key", ["caData", "certData", "keyData"])
def test_a_non_ascii_character_in_a_pem_field_is_an_invalid_secret(key: str) -> None:
    """Failed on 6729d94 with ValueError: string argument should contain only ASCII characters."""
    with pytest.raises(InvalidClusterSecret, match=rf"config\.tlsClientConfig\.{key} is not base64"):
        parse_secret(_with_config({"tlsClientConfig": {key: b64(CA.pem)[:-4] + "\u00e9==="}}))


@pytest.mark.parametrize("value", ["sh", 5, ["sh"]])
@pytest.mark.parametrize("key", ["execProviderConfig", "awsAuthConfig"])
def test_an_auth_block_that_is_not_an_object_is_an_invalid_secret(key: str, value: Any) -> None:
    """Failed on 6729d94 with AttributeError: 'str' object has no attribute 'get'."""
    with pytest.raises(InvalidClusterSecret, match=rf"config\.{key} must be an object"):
        parse_secret(_with_config({key: value}))


def test_a_config_nested_past_the_parser_is_an_invalid_secret() -> None:
    deep = secret(string_data={**GOOD, "config": '{"a":' + "[" * 100_000 + "]" * 100_000 + "}"})
    with pytest.raises(InvalidClusterSecret, match="config is nested too deeply"):
        parse_secret(deep)


def test_a_config_that_is_not_json_is_named_without_quoting_it() -> None:
    with pytest.raises(InvalidClusterSecret) as exc:
        parse_secret(secret(string_data={**GOOD, "config": '{"bearerToken": "s3cr3t'}))
    assert "config is not JSON (Unterminated string" in exc.value.message and "s3cr3t" not in exc.value.message


@pytest.mark.parametrize("value", ["a\x00b", "a\nb", "a\rb"])
def test_a_bearer_token_holds_no_control_character(value: str) -> None:
    """Go's HTTP client refuses such a header (so Argo CD cannot use the Secret): refused here too."""
    with pytest.raises(InvalidClusterSecret, match=r"config\.bearerToken holds a control character"):
        parse_secret(_with_config({"bearerToken": value}))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({**GOOD, "name": "x" * 254}, "data.name is longer than 253 characters"),
        ({**GOOD, "name": "prod\x00"}, "data.name holds a control character"),
        ({**GOOD, "name": "pr\nod"}, "data.name holds a control character"),
        ({**GOOD, "server": "https://x/" + "a" * 2048}, "data.server is longer than 2048 characters"),
        ({**GOOD, "server": "https://prod\x00.example"}, "data.server holds a control character or a space"),
        ({**GOOD, "server": "https://prod example"}, "data.server holds a control character or a space"),
        ({**GOOD, "project": "team\x1b[31m"}, "data.project holds a control character"),
        ({**GOOD, "namespaces": "a,b\x00c"}, "data.namespaces holds a control character"),
    ],
)
def test_names_and_servers_are_bounded_and_hold_no_control_character(data: dict[str, str], message: str) -> None:
    with pytest.raises(InvalidClusterSecret, match=message.replace(".", r"\.")):
        parse_secret(secret(string_data=data))


def test_non_ascii_names_and_servers_and_trailing_newlines_are_fine() -> None:
    parsed = parse_secret(secret(string_data={"name": "prod-\u00e9\n", "server": "https://b\u00fccher.example/\n",
                                              "namespaces": "a,b\n", "project": "team\n"}))  # fmt: skip
    assert (parsed.name, parsed.server) == ("prod-\u00e9", "https://b\u00fccher.example")
    assert parsed.namespaces == ("a", "b") and parsed.project == "team"


def test_a_ca_bundle_is_the_certificates_in_it() -> None:
    """Text around the PEM blocks (which x509 and Go skip) made Python's ssl raise TypeError on a
    non-ASCII bundle; the bundle kept is the certificates alone."""
    bundle = "junk \u00e9\n".encode() + CA.pem + b"\x00trailer\xff"
    parsed = parse_secret(_with_config({"tlsClientConfig": {"caData": b64(bundle)}}))
    assert parsed.credentials.ca_pem == CA.pem
    ssl.create_default_context(cadata=parsed.credentials.ca_pem.decode("ascii"))


def test_metadata_and_maps_of_the_wrong_shape_are_invalid_secrets() -> None:
    for broken, field in (({"data": ["a"]}, "data"), ({"stringData": "x"}, "stringData")):
        with pytest.raises(InvalidClusterSecret, match=f"{field} must be a map"):
            parse_secret({**secret(string_data=GOOD), **broken})
    with pytest.raises(InvalidClusterSecret, match=r"stringData\.name must be a string"):
        parse_secret(secret(string_data={**GOOD, "name": 5}))
    labels = secret(string_data=GOOD)
    labels["metadata"]["annotations"] = ["a"]
    with pytest.raises(InvalidClusterSecret, match=r"metadata\.annotations must be a map"):
        parse_secret(labels)


def test_a_reader_keeps_the_name_and_server_of_a_secret_whose_credentials_do_not_parse() -> None:
    bad_ca = secret(string_data={**GOOD, "config": json.dumps({"tlsClientConfig": {"caData": "\u00e9"}})})
    no_server = secret("c2", string_data={"name": "other"})
    good = secret("c3", string_data={"name": "ok", "server": "https://ok"})
    parsed, skipped = scan_cluster_secrets([(bad_ca, "file a"), (no_server, "file b"), (good, "file c")])
    assert [s.name for s in parsed] == ["ok"]
    assert skipped[0].identity == ClusterIdentity("cluster-c1", "argocd", "prod", "https://prod.example:6443",
                                                  {"kubectl.kubernetes.io/last-applied-configuration": "{}",
                                                   "team": "a"})  # fmt: skip
    assert skipped[0].problem == "file a: config.tlsClientConfig.caData is not base64"
    assert skipped[1].identity is None and skipped[1].problem == "file b: data.server is missing"
    assert read_cluster_secrets([(bad_ca, "file a")])[1] == [
        "cluster Secret skipped: file a: config.tlsClientConfig.caData is not base64"
    ]


def test_every_base64_decoder_of_the_module_refuses_non_ascii_as_invalid() -> None:
    """The same attack by data.config: valid base64 around one non-ASCII character."""
    text = base64.b64encode(json.dumps({"bearerToken": "t"}).encode()).decode()
    with pytest.raises(InvalidClusterSecret, match=r"data\.config is not base64 of UTF-8 text"):
        parse_secret(secret(data={**{k: b64(v) for k, v in GOOD.items()}, "config": text[:4] + "\u00e9" + text[4:]}))
