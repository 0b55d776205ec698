"""Diagnostics for stderr: collected during a render, redacted, printed once at the end."""

from __future__ import annotations

from dataclasses import dataclass, field

from argocd_lifecycle.redaction import redact


@dataclass
class Diagnostics:
    #: literal values that must be masked wherever they appear (tokens, Secret values)
    secrets: set[str] = field(default_factory=set, repr=False)
    lines: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        self.lines.append("warning: " + message)

    def note(self, message: str) -> None:
        self.lines.append("note: " + message)

    def clean(self, text: str) -> str:
        for secret in sorted(self.secrets, key=len, reverse=True):
            if secret:
                text = text.replace(secret, "***")
        return redact(text)

    def rendered(self) -> list[str]:
        return [self.clean(line) for line in self.lines]
