"""One error base class for the whole project.

Foreign errors (OSError, yaml, subprocess, HTTP) are translated at the edge with ``raise ... from``;
the CLI prints ``error: <message>`` and exits with ``exit_code``. Messages must never carry secrets.
"""

from __future__ import annotations


class LifecycleError(Exception):
    """Base class: a problem the user can act on. ``str(err)`` is the one-line message."""

    exit_code: int = 1

    def __init__(self, message: str, *, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        #: further one-line problems, each printed on its own stderr line
        self.problems: list[str] = list(problems or [])

    def lines(self) -> list[str]:
        return self.problems or [self.message]


class UsageError(LifecycleError):
    """Wrong invocation: a missing file, a bad flag value."""

    exit_code = 2


class ConfigError(LifecycleError):
    """Bad settings or configuration files."""


class RenderError(LifecycleError):
    """The plugin could not render an application."""


class ToolError(RenderError):
    """An upstream tool (helm, kustomize) failed or is missing."""
