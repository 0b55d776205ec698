"""What must never be printed (plugin/masking.py): which texts are secrets, and the forms they are masked in."""

from __future__ import annotations

import base64

from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.masking import HARMLESS_ENV, Masker, forms, from_documents, from_environ, from_values


def test_forms_of_a_secret() -> None:
    assert forms('pa"ss\nword-two') == {'pa"ss\nword-two', 'pa\\"ss\\nword-two', 'pa"ss', "word-two"}
    assert forms("abc") == set()  # too short to mask without blanking out line numbers and words
    assert forms("true") == set()


def test_environment_every_argocd_env_value_but_the_harmless_ones() -> None:
    env = {
        "ARGOCD_ENV_DB_PASS": "hunter2-value",
        "ARGOCD_ENV_REGION": "eu-west-1",
        **{f"ARGOCD_ENV_{name}": f"{name.lower()}-value" for name in HARMLESS_ENV},
        "ARGOCD_AUTH_TOKEN": "tok-value",
        "PATH": "/usr/bin:/bin",
        "ARGOCD_APP_SOURCE_REPO_URL": "https://deploy:ghp-token-value@git.example.test/org/repo.git",
    }
    secrets = from_environ(env)
    assert {"hunter2-value", "eu-west-1", "tok-value", "deploy", "ghp-token-value"} <= secrets
    assert not secrets & {"cluster_name-value", "/usr/bin:/bin", "git.example.test"}


def test_values_entries_are_secrets() -> None:
    assert from_values([("db.password", "values-s3cret"), ("replicas", 3)]) == {"values-s3cret"}


def test_a_secret_is_masked_stored_and_decoded() -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s"},
        "data": {"a": base64.b64encode(b"decoded-value").decode(), "bad": "not base64!"},
        "stringData": {"b": "plain-value"},
    }
    found = from_documents([{"kind": "List", "items": [secret]}, {"kind": "ConfigMap", "data": {"c": "public-value"}}])
    assert {"decoded-value", base64.b64encode(b"decoded-value").decode(), "not base64!", "plain-value"} <= found
    assert base64.b64encode(b"plain-value").decode() in found
    assert "public-value" not in found


def test_longest_secret_first_and_diagnostics_are_one_line() -> None:
    masker = Masker({"abcd", "abcdefgh"})
    assert masker.mask("x abcdefgh y abcd") == "x *** y ***"
    assert "abcd" not in repr(masker)
    diagnostics = Diagnostics(masker)
    assert diagnostics.clean("line one abcd\nline two") == "line one *** | line two"
