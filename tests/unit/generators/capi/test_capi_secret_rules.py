"""The admission policy's patterns over base64 text match exactly when the decoded value holds what is refused."""

from __future__ import annotations

import base64
import json
import random
import re
from pathlib import Path

import pytest

from argocd_lifecycle.generators.capi import secret_rules
from argocd_lifecycle.generators.capi.secret_rules import CONFIG_WORDS, MAX_BYTES, matches_cost, refusal, rules

REPO = Path(__file__).resolve().parents[4]
RULES_FILE = REPO / "charts" / "argocd-lifecycle" / "files" / "capi-secret-rules.json"
PRINTABLE = "".join(chr(c) for c in range(0x20, 0x7F) if chr(c) != "\\")


def matches(key: str, text: str | bytes) -> bool:
    raw = text.encode() if isinstance(text, str) else text
    encoded = base64.b64encode(raw).decode()
    return any(re.search(pattern, encoded) is not None for pattern in rules()[key]["patterns"])


def config_refused(raw: bytes) -> bool:
    """The rule in plain words, on the decoded bytes."""
    if b"\\" in raw or any(b >= 0x80 for b in raw):
        return True
    lowered = raw.decode("ascii").lower()
    return any(w in lowered for w in CONFIG_WORDS)


def server_refused(raw: bytes) -> bool:
    if any(c in raw for c in b"%@\\") or any(b >= 0x80 for b in raw):
        return True
    text = raw.decode("ascii").lower()
    hosts = [h + dot for h in ("kubernetes", "kubernetes.default", "kubernetes.default.svc") for dot in ("", ".")]
    for scheme in ("http://", "https://"):
        if text.startswith(scheme + "kubernetes.default.svc."):
            return True
        for host in hosts:
            if text == scheme + host or any(text.startswith(scheme + host + end) for end in ":/?#"):
                return True
    return False


def _mixed_case(text: str, rng: random.Random) -> str:
    return "".join(c.upper() if rng.random() < 0.5 else c for c in text)


def test_config_patterns_agree_with_the_rule_on_random_configs() -> None:
    rng = random.Random(24)
    for n in range(3000):
        body = "".join(rng.choice(PRINTABLE) for _ in range(rng.randrange(0, 40)))
        if n % 2:
            at = rng.randrange(0, len(body) + 1)
            body = body[:at] + _mixed_case(rng.choice(CONFIG_WORDS), rng) + body[at:]
        raw = body.encode()
        if n % 7 == 0:
            at = rng.randrange(0, len(raw) + 1)
            raw = raw[:at] + rng.choice([b"\\", bytes([rng.randrange(0x80, 0x100)])]) + raw[at:]
        assert matches("config", raw) == config_refused(raw), raw


@pytest.mark.parametrize(
    "config",
    [
        '{"execProviderConfig":{"command":"sh"}}',
        '{"EXECPROVIDERCONFIG":{"command":"sh"}}',
        '{"\\u0065xecProviderConfig":{"command":"sh"}}',  # a \u escape: the backslash is refused
        '{"bearerToken":"x","pa\u017f\u017fword":"y","u\u017fername":"z"}',  # long s folds to s in Go
        '{"awsAuthConfig":{"clusterName":"x"}}',
        '{"proxyUrl":"http://proxy:3128"}',
        '{"Username":"a","Password":"b"}',
    ],
)
def test_every_spelling_of_a_refused_field_is_refused(config: str) -> None:
    assert matches("config", config)
    assert refusal({"server": "https://10.0.0.1", "config": config}) == secret_rules.REASONS["config"]


def test_what_the_generator_writes_passes() -> None:
    ca = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").decode()
    for config in (
        {"bearerToken": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl", "tlsClientConfig": {"insecure": False}},
        {"tlsClientConfig": {"caData": ca, "certData": ca, "insecure": True, "keyData": ca, "serverName": "api.x"}},
    ):
        text = json.dumps(config, sort_keys=True, separators=(",", ":"))
        assert refusal({"server": "https://api.workload-1.example:6443", "config": text}) is None


def test_server_patterns_agree_with_the_rule() -> None:
    rng = random.Random(7)
    spellings = ["kubernetes", "kubernetes.", "kubernetes.default", "kubernetes.default.", "kubernetes.default.svc",
                 "kubernetes.default.svc.", "kubernetes.default.svc.cluster.local", "kubernetes.eu.example.com",
                 "kubernetesx", "kubernetes-api.example", "api.example", "10.0.0.1", "[::1]"]  # fmt: skip
    for _ in range(3000):
        scheme = rng.choice(["https://", "http://", "HTTPS://", "ftp://", ""])
        tail = rng.choice(["", ":443", "/", ":6443/x", "/k8s/clusters/c-1", "@evil", "%2f", "\u00e9", "?x", "#", "x"])
        text = scheme + _mixed_case(rng.choice(spellings), rng) + tail
        assert matches("server", text) == server_refused(text.encode()), text
    for allowed in ("https://kubernetes.eu.example.com", "https://kubernetes-api.example:6443", "https://10.0.0.1"):
        assert not matches("server", allowed)
    assert matches("server", "https://kubernetes.default.svc")
    assert matches("server", "https://KUBERNETES.DEFAULT.SVC.cluster.local:443/")


def test_the_charts_copy_is_what_the_module_writes() -> None:
    regenerate = "python -m argocd_lifecycle.generators.capi.secret_rules > " + str(RULES_FILE.relative_to(REPO))
    assert json.loads(RULES_FILE.read_text()) == rules(), f"run: {regenerate}"


def test_a_value_past_its_cap_is_refused_and_every_pattern_fits_one_expressions_cost_at_the_cap() -> None:
    """The API server stops an expression at a cost of 1,000,000 (the real-apiserver test sends a config
    at the cap): past the cap the policy refuses by size, before any pattern runs."""
    for key, rule in rules().items():
        assert rule["maxLength"] == len(base64.b64encode(b"x" * MAX_BYTES[key]))
        assert all(matches_cost(rule["maxLength"], len(p)) <= 800_000 for p in rule["patterns"]), key
    assert sum(matches_cost(r["maxLength"], len(p)) for r in rules().values() for p in r["patterns"]) < 5_000_000
    big = "x" * (MAX_BYTES["config"] + 1)
    assert refusal({"server": "https://10.0.0.1", "config": big}) == "the config is larger than 64512 bytes"
    assert refusal({"server": "https://10.0.0.1", "config": big[:-1]}) is None
