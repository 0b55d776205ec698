"""values.schema.json: accepts the defaults and every ci scenario, covers every key, rejects bad values."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from argocd_lifecycle.notifications.receiver.config import ARGOCD_URL

CHART = Path(__file__).resolve().parents[3] / "charts" / "argocd-lifecycle"
SCHEMA = json.loads((CHART / "values.schema.json").read_text())
DEFAULTS = yaml.safe_load((CHART / "values.yaml").read_text())
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)


def merged(override: dict[str, Any]) -> dict[str, Any]:
    def merge(base: dict[str, Any], top: dict[str, Any]) -> dict[str, Any]:
        out = copy.deepcopy(base)
        for k, v in top.items():
            out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
        return out

    return merge(DEFAULTS, override)


def errors(values: dict[str, Any]) -> list[str]:
    return sorted(f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(values))


def test_schema_is_valid_draft7() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("scenario", sorted(p.name for p in (CHART / "ci").glob("*-values.yaml")))
def test_defaults_and_scenarios_are_accepted(scenario: str) -> None:
    assert errors(DEFAULTS) == []
    assert errors(merged(yaml.safe_load((CHART / "ci" / scenario).read_text()) or {})) == []


def schema_paths(schema: dict[str, Any], prefix: str = "") -> set[str]:
    out = set()
    for key, sub in (schema.get("properties") or {}).items():
        path = f"{prefix}{key}"
        out.add(path)
        out |= schema_paths(sub, path + ".")
    return out


def value_paths(values: dict[str, Any], prefix: str = "") -> set[str]:
    out = set()
    for key, value in values.items():
        path = f"{prefix}{key}"
        out.add(path)
        if isinstance(value, dict) and value:
            out |= value_paths(value, path + ".")
    return out


def test_every_value_is_in_the_schema() -> None:
    free_form = (
        "global.podSecurityContext.",
        "global.containerSecurityContext.",
        "receiver.config.",
        # label maps: keys are label names, checked by propertyNames
        "global.networkPolicy.metricsScrapers.podLabels.",
        "generator.networkPolicy.applicationSetControllerLabels.",
        "receiver.networkPolicy.notificationsControllerLabels.",
    )
    # resource quantities are a map of names to quantities, checked by additionalProperties
    missing = {
        p
        for p in value_paths(DEFAULTS) - schema_paths(SCHEMA)
        if not p.startswith(free_form) and ".resources.requests." not in p and ".resources.limits." not in p
    }
    assert missing == set()
    assert set(SCHEMA["properties"]) == set(DEFAULTS)


TENANTS = "notifications.selfService.namespaces"


def tenants(namespaces: object) -> dict[str, Any]:
    return {"notifications": {"selfService": {"namespaces": namespaces}}}


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ({"replicaCount": 2}, ": Additional properties are not allowed ('replicaCount' was unexpected)"),
        ({"generator": {"replicas": "2"}}, "generator.replicas: '2' is not of type 'integer'"),
        ({"generator": {"replicas": 0}}, "generator.replicas: 0 is less than the minimum of 1"),
        ({"generator": {"probeInterval": 10}}, "generator.probeInterval: 10 is not of type 'string'"),
        (
            {"generator": {"servicee": {}}},
            "generator: Additional properties are not allowed ('servicee' was unexpected)",
        ),
        ({"global": {"image": {"tag": "latest"}}}, "global.image.tag: 'latest' should not be valid"),
        (
            {"pluginGenerator": {"requestTimeout": "10s"}},
            "pluginGenerator.requestTimeout: '10s' is not of type 'integer'",
        ),
        ({"receiver": {"state": {"type": "etcd"}}}, "receiver.state.type: 'etcd' is not one of ['sqlite', 'redis']"),
        (
            {"receiver": {"state": {"redis": {"url": "http://x"}}}},
            "receiver.state.redis.url: 'http://x' does not match",
        ),
        (
            {"notifications": {"apply": {"enabled": "yes"}}},
            "notifications.apply.enabled: 'yes' is not of type 'boolean'",
        ),
        (
            {"prometheusRule": {"unreachableFor": "five minutes"}},
            "prometheusRule.unreachableFor: 'five minutes' does not",
        ),
        ({"receiver": {"enabled": True}}, "receiver.config.receivers: [] should be non-empty"),
        ({"receiver": {"replicas": 3}}, "receiver.replicas: 3 is greater than the maximum of 1"),
        ({"generator": {"applicationNamespaces": ["Team-A"]}}, "generator.applicationNamespaces.0: 'Team-A' does not"),
        ({"generator": {"applicationNamespaces": ["team/a"]}}, "generator.applicationNamespaces.0: 'team/a' does not"),
        ({"generator": {"applicationNamespaces": ["team-*"]}}, "generator.applicationNamespaces.0: 'team-*' does not"),
        ({"generator": {"applicationNamespaces": ["a", "a"]}}, "generator.applicationNamespaces: ['a', 'a'] has non"),
        ({"generator": {"applicationNamespaces": "team-a"}}, "generator.applicationNamespaces: 'team-a' is not of"),
        *(
            (tenants([bad]), f"{TENANTS}.0: {bad!r} does not")
            for bad in ("Team-A", "team_a", "team.a", "-team", "team-", "*", "team-*", "")
        ),
        (tenants(["x" * 64]), f"{TENANTS}.0: '{'x' * 64}' is too long"),
        (tenants(["a", "a"]), f"{TENANTS}: ['a', 'a'] has non-unique"),
        (tenants("team-a"), f"{TENANTS}: 'team-a' is not of type 'array'"),
        (tenants([f"t{i}" for i in range(101)]), f"{TENANTS}: ['t0', "),  # at most 100
        ({"notifications": {"selfService": {"tokens": {}}}}, "notifications.selfService: Additional properties"),
        ({"generator": {"drift": {"enabled": "yes"}}}, "generator.drift.enabled: 'yes' is not of type 'boolean'"),
        ({"generator": {"drift": {"window": 30}}}, "generator.drift.window: 30 is not of type 'string'"),
        ({"generator": {"drift": {"window": "0m"}}}, "generator.drift.window: '0m' should not be valid"),
        ({"generator": {"drift": {"window": "30 min"}}}, "generator.drift.window: '30 min' does not match"),
        ({"generator": {"drift": {"projectWindows": {"web": "2 h"}}}}, "generator.drift.projectWindows.web: '2 h'"),
        ({"generator": {"drift": {"projectWindows": {"Web": "2h"}}}}, "generator.drift.projectWindows: 'Web' does"),
    ],
)
def test_bad_values_are_rejected_naming_the_value(override: dict[str, Any], expected: str) -> None:
    found = errors(merged(override))
    assert any(e.startswith(expected) for e in found), found


def test_tenants_namespaces_for_self_service_notifications_are_accepted() -> None:
    assert errors(merged({"notifications": {"selfService": {"namespaces": ["team-a", "b2", "x" * 63]}}})) == []


#: durations both the drift window's schema and the generator's parser (parse_window) accept
GOOD_WINDOWS = ["30m", "2h", "1h30m", "7d", "1d12h", "45s", "90m", "0h5m"]
#: refused by the schema (most by the generator too; fractions, ms and blanks only by the schema)
BAD_WINDOWS = ["10", "m", "", "0s", "00m", "0d0h", "1.5h", "30 m", "-5m", "5M", "1w", "2h30", "h5", " 30m", "500ms"]


@pytest.mark.parametrize("text", GOOD_WINDOWS + BAD_WINDOWS)
def test_the_drift_window_schema_accepts_only_what_the_generator_parses(text: str) -> None:
    from argocd_lifecycle.generators.drift.window import parse_window

    found = errors(merged({"generator": {"drift": {"window": text, "projectWindows": {"web": text}}}}))
    assert (found == []) is (text in GOOD_WINDOWS), found
    if text in GOOD_WINDOWS:
        assert parse_window(text) > 0  # what the schema lets through, the generator starts with


def test_redis_allows_several_receivers() -> None:
    values = merged({"receiver": {"replicas": 3, "state": {"type": "redis", "redis": {"url": "redis://r:6379/0"}}}})
    assert errors(values) == []


SECRETS = "/etc/argocd-lifecycle/receiver/secrets"
SLACK = {"name": "a", "type": "slack", "urlFile": f"{SECRETS}/s/url"}


def receiver(*sinks: dict[str, Any], inbound: dict[str, Any] | None = None) -> dict[str, Any]:
    config: dict[str, Any] = {"receivers": list(sinks)}
    if inbound is not None:
        config["inbound"] = inbound
    return merged({"receiver": {"enabled": True, "config": config}})


def test_sinks_from_mounted_secrets_are_accepted() -> None:
    slack = {"name": "ops", "type": "slack", "urlFile": f"{SECRETS}/slack/url"}
    email = {
        "name": "mail",
        "type": "email",
        "smtp": {"host": "smtp.example", "from": "a@example.org", "to": ["b@example.org"],
                 "usernameFile": f"{SECRETS}/smtp/user", "passwordFile": f"{SECRETS}/smtp/password"},
    }  # fmt: skip
    assert errors(receiver(slack, email, inbound={"tolerance": "5m"})) == []


@pytest.mark.parametrize(
    ("sink", "inbound", "expected"),
    [
        ({"name": "a", "type": "slack", "url": "https://hooks.slack.example/x"}, None, "receivers.0.url"),
        ({"name": "a", "type": "dingtalk", "urlFile": f"{SECRETS}/d/url", "secret": "k"}, None, "receivers.0.secret"),
        ({"name": "a", "type": "email", "smtp": {"password": "p"}}, None, "receivers.0.smtp.password"),
        ({"name": "a", "type": "webhook", "urlFile": "/var/run/url"}, None, "receivers.0.urlFile: '/var/run/url'"),
        ({"name": "a", "type": "teams"}, None, "receiver.config.receivers.0: 'urlFile' is a required property"),
        ({"name": "a", "type": "slack", "urlFile": f"{SECRETS}/s/url"}, {"hmacSecret": "x"}, "inbound.hmacSecret"),
        (SLACK, {"externalSecretFile": "/x"}, "inbound.externalSecretFile"),
        (SLACK, {"lifecycleSecretFile": "/x"}, "inbound.lifecycleSecretFile"),
    ],
)  # fmt: skip
def test_inline_credentials_are_refused(sink: dict[str, Any], inbound: dict[str, Any] | None, expected: str) -> None:
    found = errors(receiver(sink, inbound=inbound))
    assert any(e.startswith(expected) or expected in e for e in found), found


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ({"generator": {"admissionPolicy": {"enabled": "yes"}}}, "generator.admissionPolicy.enabled: 'yes'"),
        ({"generator": {"admissionPolicy": {"mode": "audit"}}}, "generator.admissionPolicy: Additional properties"),
        ({"generator": {"networkPolicy": {"applicationSetControllerLabels": {"a b": "c"}}}}, "generator.networkPolicy"),
        ({"receiver": {"networkPolicy": {"notificationsControllerLabels": {"app": "a b"}}}}, "receiver.networkPolicy"),
        ({"global": {"networkPolicy": {"metricsScrapers": {"podLabels": {"app": 1}}}}}, "global.networkPolicy"),
        ({"generator": {"serviceAccount": {"name": "Bad Name"}}}, "generator.serviceAccount.name"),
        ({"secretInit": {"backoffLimit": -1}}, "secretInit.backoffLimit: -1 is less than the minimum of 0"),
    ],
)
def test_policy_values_are_checked(override: dict[str, Any], expected: str) -> None:
    found = errors(merged(override))
    assert any(e.startswith(expected) for e in found), found


def test_the_argocd_url_is_checked_as_the_receiver_checks_it() -> None:
    """The schema's pattern is the receiver's own (config.py), so helm refuses what the pod would."""
    pattern = SCHEMA["properties"]["receiver"]["properties"]["config"]["properties"]["argocdUrl"]["pattern"]
    assert pattern == "^(" + ARGOCD_URL.pattern.removeprefix("^").removesuffix("$") + ")?$"
    good = receiver(SLACK)
    good["receiver"]["config"]["argocdUrl"] = "https://argocd.example.com/cd"
    assert errors(good) == []
    good["receiver"]["config"]["argocdUrl"] = "https://argocd.example.com/?x=(y)"
    assert any(e.startswith("receiver.config.argocdUrl") for e in errors(good))
