"""Logging goes to stderr (never stdout), redacted, to whatever stderr is when a record is emitted."""

from __future__ import annotations

import io
import logging
import sys

import pytest

from argocd_lifecycle import logs


def test_records_go_to_stderr_redacted(capsys: pytest.CaptureFixture[str]) -> None:
    logs.setup("INFO", fmt="%(levelname)s %(message)s")
    logging.getLogger("test").info("calling with Bearer abc123")
    logging.getLogger("test").debug("not shown at INFO")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "INFO calling with Bearer ***\n"


def test_setup_replaces_handlers_and_sets_the_level() -> None:
    logs.setup("warning")
    root = logging.getLogger()
    assert len(root.handlers) == 1 and root.level == logging.WARNING
    logs.setup("debug")
    assert len(root.handlers) == 1 and root.level == logging.DEBUG


def test_a_swapped_stderr_is_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    logs.setup("INFO", fmt="%(message)s")
    first, second = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    logging.getLogger("test").warning("one")
    monkeypatch.setattr(sys, "stderr", second)
    first.close()  # a test runner closing the stream it lent: the handler must not write to it
    logging.getLogger("test").warning("two")
    assert second.getvalue() == "two\n"
