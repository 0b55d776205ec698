"""The break-glass window of one Application: how long a manual change may stand before the compliance
alert, from its annotation, else its project's entry of the policy file, else the default (30m)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from argocd_lifecycle.drift.report import AppDrift
from argocd_lifecycle.errors import ConfigError, UsageError
from argocd_lifecycle.generators.service.policy import DRIFT_WINDOWS
from argocd_lifecycle.model import Annotation
from argocd_lifecycle.times import parse_duration
from argocd_lifecycle.yaml import yamlio

DEFAULT_WINDOW = 30 * 60.0
#: a window longer than this is not break-glass any more
LONGEST_WINDOW = 7 * 86400.0


def parse_window(text: str) -> float:
    """Seconds of a window (``30m``, ``2h``), more than zero and at most a week; ValueError otherwise."""
    seconds = parse_duration(text, longest=LONGEST_WINDOW)
    if seconds <= 0:
        raise ValueError(f"{text!r} must be longer than zero")
    return seconds


@dataclass(frozen=True)
class Windows:
    default: float = DEFAULT_WINDOW
    #: project -> seconds (the policy file's ``driftWindows``)
    projects: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0 < self.default <= LONGEST_WINDOW:
            raise UsageError(f"--drift-window ({self.default:g}s) must be longer than zero and at most a week")

    def of(self, app: AppDrift) -> tuple[float, str]:
        """The window's seconds and where it came from (an unreadable annotation falls back, saying so)."""
        text = app.annotations.get(Annotation.DRIFT_WINDOW, "").strip()
        if text:
            try:
                return parse_window(text), f"annotation {Annotation.DRIFT_WINDOW}"
            except ValueError as exc:
                fallback, source = self._project(app)
                return fallback, f"{source} (annotation {Annotation.DRIFT_WINDOW} ignored: {exc})"
        return self._project(app)

    def _project(self, app: AppDrift) -> tuple[float, str]:
        if app.project in self.projects:
            return self.projects[app.project], f"project {app.project}"
        return self.default, "default"


def project_windows(path: Path | None) -> dict[str, float]:
    """``driftWindows: {project: 45m}`` of the policy file (``--policy-file``), read once at start-up."""
    if path is None:
        return {}
    data = yamlio.load_config(path, "the policy file")
    raw = data.get(DRIFT_WINDOWS) if isinstance(data, Mapping) else None
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{path}: {DRIFT_WINDOWS}: expected a mapping of project to duration")
    windows: dict[str, float] = {}
    for project, text in raw.items():
        if not isinstance(project, str) or not isinstance(text, str):
            raise ConfigError(f"{path}: {DRIFT_WINDOWS}: expected project: duration (30m, 2h) pairs of strings")
        try:
            windows[project] = parse_window(text)
        except ValueError as exc:
            raise ConfigError(f"{path}: {DRIFT_WINDOWS}.{project}: {exc}") from exc
    return windows
