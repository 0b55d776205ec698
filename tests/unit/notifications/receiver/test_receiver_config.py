from __future__ import annotations

from pathlib import Path

import pytest

from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.notifications.receiver import config as receiver_config
from tests.unit.notifications.receiver.conftest import (
    ADMIN_TOKEN,
    BASIC,
    EXTERNAL_SECRET,
    LIFECYCLE_SECRET,
    TOKEN,
    write_config,
)


def test_loads_the_documented_example_with_secrets_from_files(tmp_path: Path) -> None:
    cfg = receiver_config.load(write_config(tmp_path, BASIC))
    assert cfg.ingest_token.matches(TOKEN) and cfg.lifecycle_secret == LIFECYCLE_SECRET
    assert cfg.external_secret == EXTERNAL_SECRET and cfg.argocd_url == "https://argocd.example"
    assert cfg.admin_token is not None and cfg.admin_token.matches(ADMIN_TOKEN)
    assert cfg.dedupe_window == 1800 and cfg.flap_threshold == 3
    assert [s.name for s in cfg.sinks] == ["ops-slack", "ops-dingtalk", "audit"]
    assert cfg.sinks[1].secret == b"hook-secret"
    assert cfg.sinks[1].rate == receiver_config.RateLimit(20, 60.0)  # DingTalk's published limit
    assert cfg.routes[0].match == {"severity": frozenset({"critical"})} and cfg.routes[0].continue_


def test_reprs_hold_no_secrets(tmp_path: Path) -> None:
    cfg = receiver_config.load(write_config(tmp_path, BASIC))
    text = repr(cfg)
    for secret in (
        TOKEN,
        ADMIN_TOKEN,
        LIFECYCLE_SECRET.decode(),
        EXTERNAL_SECRET.decode(),
        "hook-secret",
        "access_token",
    ):
        assert secret not in text


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("tokenFile: token,", "tokenFile: missing,"), "inbound.tokenFile: "),
        (("tokenFile: admin-token", "tokenFile: missing"), "admin.tokenFile: "),
        (("tokenFile: admin-token", "tokenFile: token"), "admin.tokenFile: holds the same token as inbound.tokenFile"),
        (("type: slack", "type: pager"), "receivers[0].type: must be one of"),
        (("receiver: ops-slack", "receiver: nobody"), "routes[1].receiver: 'nobody' is not one of"),
        (("severity: [critical]", "colour: [red]"), "routes[0].match.colour: unknown match key"),
        (("window: 30m", "window: soon"), "dedupe.window: 'soon' is not a duration"),
        (("threshold: 3", "threshold: -1"), "flap.threshold: must be a positive whole number"),
        (
            (
                'type: webhook, url: "http://127.0.0.1:9/audit", secretFile: hook-secret',
                'type: webhook, url: "http://127.0.0.1:9/audit"',
            ),
            "secretFile: required",
        ),
        (('url: "http://127.0.0.1:9/slack"', "url: ftp://x"), "receivers[0].url: must be an http(s) URL"),
    ],
)
def test_bad_config_names_file_and_key(tmp_path: Path, edit: tuple[str, str], message: str) -> None:
    old, new = edit
    assert old in BASIC
    path = write_config(tmp_path, BASIC.replace(old, new, 1))
    with pytest.raises(ConfigError) as err:
        receiver_config.load(path)
    assert str(err.value).startswith(str(path))
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("file", "key"), [("lifecycle-hmac", "lifecycleSecretFile"), ("external-hmac", "externalSecretFile")]
)
def test_empty_secret_file_is_refused(tmp_path: Path, file: str, key: str) -> None:
    path = write_config(tmp_path, BASIC)
    (tmp_path / file).write_text("\n")
    with pytest.raises(ConfigError, match=rf"inbound\.{key}: .*{file} is empty"):
        receiver_config.load(path)


def test_the_shared_hmac_secret_of_old_configs_is_refused_with_the_way_out(tmp_path: Path) -> None:
    old = BASIC.replace("lifecycleSecretFile: lifecycle-hmac, externalSecretFile: external-hmac", "hmacSecretFile: x")
    with pytest.raises(ConfigError) as err:
        receiver_config.load(write_config(tmp_path, old))
    message = str(err.value)
    assert "inbound.hmacSecretFile: replaced by lifecycleSecretFile" in message and "externalSecretFile" in message


def test_one_secret_for_both_senders_is_refused_even_from_another_file(tmp_path: Path) -> None:
    path = write_config(tmp_path, BASIC)
    (tmp_path / "external-hmac").write_bytes(LIFECYCLE_SECRET + b"\n")
    with pytest.raises(ConfigError, match=r"inbound\.externalSecretFile: holds the same secret as lifecycleSecretFile"):
        receiver_config.load(path)


def test_the_external_secret_is_optional(tmp_path: Path) -> None:
    cfg = receiver_config.load(write_config(tmp_path, BASIC.replace(", externalSecretFile: external-hmac", "")))
    assert cfg.external_secret is None


@pytest.mark.parametrize(
    "url",
    [
        "ftp://argocd.example",
        "https://user:pw@argocd.example",
        "https://argocd.example/?next=x",
        "https://argocd.example/#x",
        "https://argocd.example/a)b",
        "https://argocd.example/a b",
        "javascript:alert(1)",
        "https://",
    ],
)
def test_argocd_url_must_be_a_plain_http_base(tmp_path: Path, url: str) -> None:
    path = write_config(tmp_path, BASIC.replace("argocdUrl: https://argocd.example", f"argocdUrl: {url!r}"))
    with pytest.raises(ConfigError, match=r"\.argocdUrl: must be the Argo CD UI's http\(s\) URL"):
        receiver_config.load(path)


def test_argocd_url_loses_its_trailing_slash_and_is_optional(tmp_path: Path) -> None:
    cfg = receiver_config.load(write_config(tmp_path, BASIC.replace("argocd.example", "[::1]:8443/cd/")))
    assert cfg.argocd_url == "https://[::1]:8443/cd"
    without = BASIC.replace("argocdUrl: https://argocd.example", "")
    assert receiver_config.load(write_config(tmp_path, without)).argocd_url == ""


def test_not_yaml(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not valid YAML"):
        receiver_config.load(write_config(tmp_path, "inbound: [unclosed"))


def test_the_admin_token_is_optional(tmp_path: Path) -> None:
    cfg = receiver_config.load(write_config(tmp_path, BASIC.replace("admin: {tokenFile: admin-token}\n", "")))
    assert cfg.admin_token is None


def test_an_admin_token_equal_to_the_ingest_token_is_refused_even_from_another_file(tmp_path: Path) -> None:
    path = write_config(tmp_path, BASIC)
    (tmp_path / "admin-token").write_text(f"  {TOKEN}\n")
    with pytest.raises(ConfigError, match=r"admin\.tokenFile: holds the same token as inbound\.tokenFile"):
        receiver_config.load(path)
