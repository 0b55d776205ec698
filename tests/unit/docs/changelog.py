"""CHANGELOG.md read as Keep a Changelog: one `## [version] - date` section per release, `### Kind`
sub-sections, one bullet per change. The chart's `artifacthub.io/changes` is derived from it."""

from __future__ import annotations

import re

from tests.unit.docs.blocks import REPO

CHANGELOG = REPO / "CHANGELOG.md"
#: Keep a Changelog's kinds, as Artifact Hub spells them
KINDS = ("added", "changed", "deprecated", "removed", "fixed", "security")
RELEASE = re.compile(r"^## \[(?P<version>[^\]]+)\] - (?P<date>\d{4}-\d\d-\d\d|Unreleased)$")


def sections() -> dict[str, str]:
    """version -> the text of its section."""
    out: dict[str, str] = {}
    current = None
    for line in CHANGELOG.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            match = RELEASE.match(line)
            assert match, f"CHANGELOG.md: {line!r} is not '## [x.y.z] - YYYY-MM-DD' (or '- Unreleased')"
            current = match.group("version")
            out[current] = ""
        elif current is not None:
            out[current] += line + "\n"
    return out


def changes(version: str) -> list[dict[str, str]]:
    """The release's bullets as Artifact Hub changes: kind, and the text on one line."""
    out: list[dict[str, str]] = []
    kind = None
    for block in re.split(r"\n(?=### |- )", sections()[version]):
        if block.startswith("### "):
            kind = block.removeprefix("### ").strip().lower()
            assert kind in KINDS, f"CHANGELOG.md [{version}]: '### {kind}' is not one of {KINDS}"
        elif block.startswith("- "):
            assert kind is not None, f"CHANGELOG.md [{version}]: a bullet before any '### Kind'"
            out.append({"kind": kind, "description": " ".join(block.removeprefix("- ").split())})
    return out
