"""Diagnostics for stderr: collected during a render, masked, printed once at the end."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from argocd_lifecycle.plugin.masking import Masker
from argocd_lifecycle.redaction import redact


@dataclass
class Diagnostics:
    #: texts that must be masked wherever they appear (tokens, Secret values, ``values`` entries)
    secrets: Masker = field(default_factory=Masker, repr=False)
    lines: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        self.lines.append("warning: " + message)

    def note(self, message: str) -> None:
        self.lines.append("note: " + message)

    def clean(self, text: str) -> str:
        """Masked, and one line (a message with line breaks would read as several diagnostics)."""
        return redact(self.secrets.mask(text)).replace("\r", "").replace("\n", " | ")

    def rendered(self) -> list[str]:
        return [self.clean(line) for line in self.lines]


def json_syntax_error(where: str, exc: json.JSONDecodeError) -> str:
    return f"{where}:{exc.lineno}:{exc.colno}: JSON syntax error: {exc.msg}"
