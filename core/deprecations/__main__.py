"""`python -m argocd_lifecycle.deprecations`: compile deprecations.yaml into table.py (then `ruff format`).

Every render reads the built-in table: Python loads the compiled module from its bytecode cache in a
fraction of the time PyYAML takes to parse the YAML (about 0.2 against 6 ms of a ~60 ms cold start).
The YAML stays the source; a unit test fails when the two differ.
"""

from __future__ import annotations

import pprint

from argocd_lifecycle import yamlio
from argocd_lifecycle.deprecations.knowledge import BUILTIN, COMPILED, TABLE, parse_rules

HEADER = '''"""The built-in deprecation table as Python data, compiled from deprecations.yaml by
`python -m argocd_lifecycle.deprecations` (then `ruff format`): do not edit, edit the YAML."""

DATA = '''


def source(text: str) -> str:
    """The module for the table ``text``; a table the loader would refuse is refused here."""
    data = yamlio.load(text)
    parse_rules(data, BUILTIN)
    return HEADER + pprint.pformat(data, sort_dicts=False, width=110) + "\n"


def main() -> None:
    COMPILED.write_text(source(TABLE.read_text(encoding="utf-8")), encoding="utf-8")


if __name__ == "__main__":
    main()
