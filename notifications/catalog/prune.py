"""Drop Go template variables a field never uses.

Every template field starts with the same prelude of ``{{- $x := ... -}}`` lines (text/template has
no way to share them between fields). Unused variables are harmless to the engine but make the
generated ConfigMap long and hard to read, so each field keeps only the lines it needs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_ASSIGNMENT = re.compile(r"^\s*\{\{-?\s*\$(\w+)\s*:=.*-?\}\}\s*$")


def prune_field(text: str) -> str:
    """Remove assignment lines whose variable no other line references, until none is left."""
    lines = text.split("\n")
    while True:
        unused = None
        for i, line in enumerate(lines):
            match = _ASSIGNMENT.match(line)
            if match is None:
                continue
            ref = re.compile(r"\$" + match.group(1) + r"\b")
            if not any(ref.search(other) for j, other in enumerate(lines) if j != i):
                unused = i
                break
        if unused is None:
            return "\n".join(lines)
        del lines[unused]


def prune(value: Any) -> Any:
    """Apply ``prune_field`` to every string of a parsed template, keeping the structure."""
    if isinstance(value, str):
        return prune_field(value)
    if isinstance(value, Mapping):
        return {key: prune(item) for key, item in value.items()}
    if isinstance(value, list):
        return [prune(item) for item in value]
    return value
