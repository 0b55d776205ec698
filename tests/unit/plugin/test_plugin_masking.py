"""What must never be printed (plugin/masking.py): which texts are secrets, and the forms they are masked in."""

from __future__ import annotations

import base64

import pytest

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.diagnostics import Diagnostics
from argocd_lifecycle.plugin.masking import (
    HARMLESS_ENV,
    Masker,
    forms,
    from_documents,
    from_environ,
    from_values,
    from_values_text,
    from_yaml_text,
    secret_document_at,
)
from argocd_lifecycle.plugin.stream.parse import load_documents
from argocd_lifecycle.yaml import yamlio


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
    nested = [("db", {"users": [{"name": "nested-user", "password": "nested-s3cret"}], "port": 5432})]
    assert from_values(nested) == {"nested-user", "nested-s3cret"}  # keys are structure, not masked


def test_a_value_is_masked_without_the_mark_yaml_reads_it_by() -> None:
    # `*x`, `&x`, `!x` are an alias, anchor and tag: a parser's message quotes the name alone
    assert {"*alias-value", "alias-value"} <= forms("*alias-value")
    assert "tag-value" in forms("!tag-value") and "anchor-value" in forms("&anchor-value")


LIMITS = yamlio.DEFAULT_LIMITS
BROKEN = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: public}\ndata: {a: public-value}\n---\n"
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n"
    "  pw: *alias-s3cret\n  tok: !tag-s3cret plain-s3cret\n  - 'quoted-s3cret'\n  key: |\n    block-s3cret\n"
    "  flow: {a: flow-s3cret, b: [listed-s3cret]}\n  name: {{ .Values.templated }}\n"
)


def test_a_secret_that_does_not_parse_is_masked_value_by_value() -> None:
    found = from_yaml_text(BROKEN, LIMITS)
    words = {"alias-s3cret", "tag-s3cret", "plain-s3cret", "quoted-s3cret", "block-s3cret", "flow-s3cret"}
    assert words | {"listed-s3cret", "creds"} <= found
    # the shape of a Secret, template actions and the ConfigMap beside it stay readable
    assert not found & {"Secret", "stringData", "metadata", "public-value", "public", ".Values.templated"}
    assert not [f for f in found if f.endswith(":")]


def test_a_secret_that_parses_is_masked_by_its_values_only() -> None:
    text = "apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {pw: parsed-s3cret}\n"
    assert from_yaml_text(text, LIMITS) >= {"parsed-s3cret"}
    assert "creds" not in from_yaml_text(text, LIMITS)
    assert from_yaml_text("kind: ConfigMap\ndata: {pw: *not-a-secret}\n", LIMITS) == set()


def test_every_string_of_a_values_file_and_every_value_of_a_broken_one() -> None:
    text = "image: {tag: v1.2.3-rc}\ndb:\n  password: values-s3cret\n  port: 5432\nhosts: [a.example.test]\n"
    assert from_values_text(text, LIMITS) == forms("v1.2.3-rc") | forms("values-s3cret") | forms("a.example.test")
    assert {"broken-s3cret", "listed"} <= from_values_text("pw: *broken-s3cret\nl: [listed]\n", LIMITS)


@pytest.mark.parametrize(("line", "inside"), [(0, False), (3, False), (4, True), (6, True), (13, True)])
def test_which_lines_are_in_a_secret_document(line: int, inside: bool) -> None:
    assert secret_document_at(BROKEN, line) is inside


def test_a_yaml_error_inside_a_secret_hides_what_it_quotes() -> None:
    text = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData:\n  pw: !tagged-s3cret x\n"
    with pytest.raises(RenderError) as caught:
        load_documents(text, "s.yaml")
    assert str(caught.value) == "s.yaml:5:7: YAML syntax error: could not determine a constructor for the tag '***'"
    assert "tagged-s3cret" not in str(caught.value.__cause__)  # nor in the chained exception
    # outside a Secret the problem is shown as it is
    with pytest.raises(RenderError, match="the tag '!tagged-public'"):
        load_documents(text.replace("Secret", "ConfigMap").replace("s3cret", "public"), "c.yaml")
    # a text too short to be a secret is kept, as everywhere
    with pytest.raises(RenderError, match="the tag '!ab'"):
        load_documents(text.replace("tagged-s3cret", "ab"), "s.yaml")


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
