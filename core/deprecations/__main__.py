"""`python -m argocd_lifecycle.deprecations`: compile deprecations.yaml into table.py (then `ruff format`).

Every render reads the built-in table: Python loads the compiled module from its bytecode cache in a
fraction of the time PyYAML took to parse and check the YAML (about 0.5 against 7 ms of a ~60 ms cold
start). The YAML stays the source; a unit test fails when the two differ.
"""

from __future__ import annotations

import dataclasses

from argocd_lifecycle.deprecations.knowledge import COMPILED, TABLE, parse_rules
from argocd_lifecycle.deprecations.rules import BUILTIN, ApiRule, Replacement
from argocd_lifecycle.yaml import yamlio

HEADER = '''"""The built-in deprecation table, compiled from deprecations.yaml by
`python -m argocd_lifecycle.deprecations` (then `ruff format`): do not edit, edit the YAML."""

# ruff: noqa: E501 (the notes, one string each)
from argocd_lifecycle.deprecations.rules import ApiRule, Replacement

'''


def _literal(value: object) -> str:
    """Python source for a rule's value; fields at their default are left out."""
    if isinstance(value, ApiRule | Replacement):
        args = (
            f"{f.name}={_literal(getattr(value, f.name))}"
            for f in dataclasses.fields(value)
            if getattr(value, f.name) != f.default
        )
        return f"{type(value).__name__}({', '.join(args)})"
    if isinstance(value, tuple):
        return "(" + ", ".join(_literal(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def source(text: str) -> str:
    """The module for the table ``text``; a table the loader would refuse is refused here."""
    rules, data_version = parse_rules(yamlio.load(text), BUILTIN)
    body = "".join(f"    {_literal(rule)},\n" for rule in rules)
    return f"{HEADER}DATA_VERSION = {data_version!r}\nRULES = (\n{body})\n"


LISTED_HEADER = '''"""The (apiVersion, kind) of every rule in the built-in table, compiled with table.py by
`python -m argocd_lifecycle.deprecations` (then `ruff format`): do not edit, edit the YAML. A render
whose objects are none of these (and hold no RBAC or HPA) never imports the rules or the engine."""

'''


def listed_source(text: str) -> str:
    """The module of the table's (apiVersion, kind) pairs, sorted."""
    rules, _ = parse_rules(yamlio.load(text), BUILTIN)
    pairs = "".join(
        f"        {(r.api_version, r.kind)!r},\n" for r in sorted(rules, key=lambda r: (r.api_version, r.kind))
    )
    return f"{LISTED_HEADER}LISTED = frozenset(\n    (\n{pairs}    )\n)\n"


def main() -> None:
    text = TABLE.read_text(encoding="utf-8")
    COMPILED.write_text(source(text), encoding="utf-8")
    # resolved: an editable install links each file, and a new file must land beside the real table
    COMPILED.resolve().with_name("listed.py").write_text(listed_source(text), encoding="utf-8")


if __name__ == "__main__":
    main()
