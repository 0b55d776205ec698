"""Logging to stderr (results go to stdout), and redaction of secrets before anything is printed."""

from __future__ import annotations

import logging
import sys

from argocd_lifecycle.redaction import redact

__all__ = ["redact", "setup"]


class _RedactingFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at emit time (as logging's own last-resort handler does),
    so a handler installed while stderr was swapped (a test runner) never writes to a closed stream."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, _value: object) -> None:
        pass


def setup(level: str = "INFO", *, fmt: str = "%(asctime)s %(levelname)s %(name)s: %(message)s") -> None:
    """Configure the root logger once, at start-up of a long-running command."""
    handler = _StderrHandler()
    handler.setFormatter(_RedactingFormatter(fmt))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
