"""Hostile values in argocd-cmd-params-cm's namespace lists: each is read or stops the start with one
ArgoParamsError naming the ConfigMap and the key, bounded, never echoing the value; no pattern is ever
compiled or matched, so a regular expression built to backtrack costs nothing."""

from __future__ import annotations

import fnmatch
import re

import pytest

from argocd_lifecycle.generators.fleet.argocd_params import (
    APPLICATION_NAMESPACES,
    APPSET_NAMESPACES,
    MAX_PATTERN,
    MAX_PATTERNS,
    MAX_VALUE,
    ArgoNamespaces,
    ArgoParamsError,
    shown,
)
from argocd_lifecycle.generators.fleet.namespaces import Namespaces

WHERE = "ConfigMap argocd/argocd-cmd-params-cm"
MARK = "s3cr3t"  # in each hostile value: a message holding it echoed the value
REFUSED = {
    "oversized": f"{MARK}," + "team-a," * (MAX_VALUE // 7 + 1),
    "too-many-entries": f"{MARK}," + ",".join(f"t{i}" for i in range(MAX_PATTERNS + 1)),
    "one-huge-entry": f"team-a,{MARK}" + "x" * MAX_PATTERN,
    "NUL": f"team-a,{MARK}\x00",
    "escape-sequence": f"team-a,{MARK}\x1b[2J",
    "vertical-tab": f"team-a,{MARK}\x0bteam-b",
    "C1-control": f"team-a,{MARK}\x9b31m",
    "DEL": f"team-a,{MARK}\x7f",
}
KEYS = (APPSET_NAMESPACES, APPLICATION_NAMESPACES)


@pytest.mark.parametrize("kind", sorted(REFUSED))
@pytest.mark.parametrize("key", KEYS)
def test_a_hostile_value_stops_the_start_naming_the_key_never_the_value(key: str, kind: str) -> None:
    with pytest.raises(ArgoParamsError) as caught:
        ArgoNamespaces.parse({key: REFUSED[kind]}, WHERE)
    message = caught.value.message
    assert message.startswith(f"{WHERE} {key}: ")
    assert MARK not in message and len(message) < 200


@pytest.mark.parametrize("key", KEYS)
def test_a_value_that_is_not_a_string_stops_the_start(key: str) -> None:
    with pytest.raises(ArgoParamsError, match=f"{key}: not a string"):
        ArgoNamespaces.parse({key: ["team-a"]}, WHERE)


def test_values_at_the_bounds_are_read() -> None:
    entries = [f"t{i}" for i in range(MAX_PATTERNS)]
    argo = ArgoNamespaces.parse(
        {APPSET_NAMESPACES: ",".join(entries), APPLICATION_NAMESPACES: "y" * MAX_PATTERN}, WHERE
    )
    assert len(argo.appsets) == MAX_PATTERNS and argo.applications == ("y" * MAX_PATTERN,)


def test_line_breaks_and_tabs_between_entries_are_blanks_as_in_a_yaml_block() -> None:
    argo = ArgoNamespaces.parse({APPSET_NAMESPACES: "team-a,\r\n\tteam-b,\n"}, WHERE)
    assert argo.appsets == ("team-a", "team-b")


def test_an_invalid_or_backtracking_regular_expression_is_an_uncovered_pattern_never_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Argo CD compiles `/.../` entries (an invalid one matches nothing); the generator does not: it
    cannot tell what they match, so they are uncovered unless every namespace is watched."""

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("a pattern of argocd-cmd-params-cm was compiled")

    for name in ("compile", "match", "fullmatch", "search"):
        monkeypatch.setattr(re, name, never)
    monkeypatch.setattr(fnmatch, "fnmatch", never)
    evil = "/^(a+)+$/"
    broken = "/([/"
    argo = ArgoNamespaces.parse({APPSET_NAMESPACES: f"team-a,{evil},{broken}"}, WHERE)
    assert argo.unwatched(Namespaces.parse("argocd", ["team-a"])).appsets == (evil, broken)
    assert argo.unwatched(Namespaces.parse("argocd", ["*"])) == ArgoNamespaces()


def test_a_pattern_in_a_message_is_quoted_and_cut() -> None:
    """Bidi overrides and other invisible characters are escaped by the quoting; a long one is cut."""
    text = shown(["team-\u202eevil", "z" * 5000])
    assert "\\u202e" in text and len(text) < 200
