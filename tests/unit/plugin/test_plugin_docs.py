"""The plugin guide's parameter table (docs/guide/plugin.md) is the plugin's table: one row per parameter the
plugin reads, in the order the UI lists them, with the default the code applies, and no row for a parameter
it does not read."""

from __future__ import annotations

import re
from pathlib import Path

from argocd_lifecycle.plugin.parameters import SPECS

GUIDE = Path(__file__).resolve().parents[3] / "docs" / "guide" / "plugin.md"
HEADER = "| name | default | meaning | accepted values"


def rows() -> list[tuple[str, str]]:
    """(name, default cell) of each row of the guide's parameter table."""
    lines = GUIDE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(HEADER))
    out = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        match = re.match(r"\| `(\w+)`[^|]*\| ([^|]*) \|", line)
        assert match, f"a guide parameter row names one parameter first: {line[:80]}"
        out.append((match.group(1), match.group(2).strip()))
    return out


def test_the_table_lists_exactly_the_parameters_the_plugin_reads() -> None:
    assert [name for name, _ in rows()] == [s.name for s in SPECS]


def test_the_table_gives_the_defaults_the_code_applies() -> None:
    defaults = dict(rows())
    for spec in SPECS:
        if spec.default is not None:
            assert defaults[spec.name] == f"`{spec.default}`", spec.name
        else:
            assert not defaults[spec.name].startswith("`"), f"{spec.name} has no default in the code"
