"""Shared helpers: the recorded fixture stories and the CLI run the way a user runs it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from argocd_lifecycle.app.cli import main
from argocd_lifecycle.notifications.timeline.build import Request, build
from argocd_lifecycle.notifications.timeline.files import gather, read_files
from argocd_lifecycle.notifications.timeline.model import Timeline

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "timeline"
BLUEGREEN = FIXTURES / "bluegreen"
FAILED = FIXTURES / "failed-sync"
STORIES = {"checkout": BLUEGREEN, "payments": FAILED}


def story_files(app: str) -> list[Path]:
    return sorted(p for p in STORIES[app].glob("*.json") if not p.name.startswith("expected"))


def story(app: str, *, include_resources: bool = True, files: list[Path] | None = None) -> Timeline:
    request = Request(app=app, namespace="argocd", include_resources=include_resources)
    return build(request, gather(read_files(files or story_files(app)), request))


@dataclass
class Result:
    code: int
    out: str
    err: str


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run ``argocd-lifecycle ARGS`` through the console entry point; stdout and stderr apart."""

    def invoke(*args: str | Path) -> Result:
        code = 0
        try:
            main([str(a) for a in args])
        except SystemExit as exc:
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return invoke


def from_files(app: str) -> list[str]:
    args: list[str] = []
    for path in story_files(app):
        args += ["--from-file", str(path)]
    return args
