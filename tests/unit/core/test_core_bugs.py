"""A caught bug is described by its type and line, never by its message (which may quote the input)."""

from __future__ import annotations

from argocd_lifecycle.bugs import describe


def test_the_type_and_the_line_that_raised_never_the_message() -> None:
    try:
        raise ValueError("token=s3cr3t-value")
    except ValueError as exc:
        text = describe(exc)
    assert text.startswith("ValueError at test_core_bugs.py:") and "s3cr3t" not in text


def test_an_exception_never_raised_is_its_type() -> None:
    assert describe(KeyError("x")) == "KeyError"
