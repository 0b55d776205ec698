"""The fenced code blocks of the project's Markdown: what the snippet tests read.

A block preceded (blank lines allowed) by ``<!-- illustrative: <why> -->`` is kept out of the name checks
(its YAML or JSON is still parsed): it shows a shape, not values a user copies.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
MARKER = re.compile(r"<!--\s*illustrative:\s*(?P<why>[^>]*?)\s*-->")
FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)(?P<info>[^`]*)$")


def doc_files() -> tuple[Path, ...]:
    """README, the docs pages and the other hand-written Markdown users read (generated ones included)."""
    tops = [REPO / name for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md") if (REPO / name).exists()]
    return (*tops, *sorted((REPO / "docs").rglob("*.md")), REPO / "examples" / "README.md")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    illustrative: str  # the marker's reason, or "" when the block is real

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def blocks(path: Path) -> Iterator[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    marker = ""
    while i < len(lines):
        line = lines[i]
        found = MARKER.search(line)
        if found:
            marker = found.group("why") or "illustrative"
        opening = FENCE.match(line)
        if opening is None:
            if line.strip() and not found:
                marker = ""
            i += 1
            continue
        indent, fence = len(opening.group("indent")), opening.group("fence")
        lang = opening.group("info").strip().split(" ")[0].lower()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        yield Block(path=path, line=i + 1, lang=lang, text="\n".join(body) + "\n", illustrative=marker)
        marker = ""
        i = j + 1


def all_blocks() -> list[Block]:
    return [b for path in doc_files() for b in blocks(path)]


def write_named_files(block: Block, folder: Path) -> None:
    """Every file a receiver config block names (``...File: path``) under ``folder``, each with its own
    secret (the receiver refuses two equal ones); a URL file holds a URL."""
    for path in re.findall(r"\b\w*[Ff]ile: ([\w./-]+)", block.text):
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(("https://hooks.example/" if "url" in target.name else "") + secrets.token_hex(32))
