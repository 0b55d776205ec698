"""Logging to stderr (results go to stdout), and redaction of secrets before anything is printed."""

from __future__ import annotations

import logging
import sys

from argocd_lifecycle.redaction import redact

__all__ = ["redact", "setup"]


class _RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def setup(level: str = "INFO", *, fmt: str = "%(asctime)s %(levelname)s %(name)s: %(message)s") -> None:
    """Configure the root logger once, at start-up of a long-running command."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_RedactingFormatter(fmt))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
