"""The compiled table (table.py, what a render reads) is the YAML table, rule for rule."""

from __future__ import annotations

import pytest

from argocd_lifecycle.deprecations import table
from argocd_lifecycle.deprecations.__main__ import source
from argocd_lifecycle.deprecations.knowledge import TABLE, builtin, parse_rules
from argocd_lifecycle.deprecations.rules import BUILTIN
from argocd_lifecycle.errors import ConfigError
from argocd_lifecycle.yaml import yamlio


def test_the_compiled_table_is_the_yaml_table() -> None:
    # fails when deprecations.yaml was edited without `python -m argocd_lifecycle.deprecations`
    rules, data_version = parse_rules(yamlio.load(TABLE.read_text(encoding="utf-8")), BUILTIN)
    assert tuple(rules) == table.RULES
    assert table.DATA_VERSION == data_version == builtin().data_version
    assert list(builtin().rules.values()) == rules


def test_the_compiler_writes_the_rules_it_read() -> None:
    text = TABLE.read_text(encoding="utf-8")
    namespace: dict[str, object] = {}
    exec(compile(source(text), "table.py", "exec"), namespace)  # our own generated source
    assert namespace["RULES"] == tuple(parse_rules(yamlio.load(text), BUILTIN)[0])


def test_the_compiler_refuses_a_table_the_loader_refuses() -> None:
    bad = "schema: argocd-lifecycle.io/deprecations/v1\napis:\n- {apiVersion: x/v1, kind: X, removedIn: soon}\n"
    with pytest.raises(ConfigError, match=r"apis\[0\]\.removedIn"):
        source(bad)
