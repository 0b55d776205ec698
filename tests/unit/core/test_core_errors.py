"""The one error base: a message, optional further problem lines, and the exit code of its family."""

from __future__ import annotations

from argocd_lifecycle.errors import ConfigError, LifecycleError, RenderError, ToolError, UsageError


def test_lines_are_the_problems_or_else_the_message() -> None:
    assert LifecycleError("one").lines() == ["one"]
    err = ConfigError("two problems", problems=["a.yaml: first", "b.yaml: second"])
    assert err.lines() == ["a.yaml: first", "b.yaml: second"]
    assert str(err) == "two problems"


def test_exit_codes_by_family() -> None:
    assert UsageError("x").exit_code == 2
    assert {ConfigError("x").exit_code, RenderError("x").exit_code, ToolError("x").exit_code} == {1}
    assert issubclass(ToolError, RenderError) and issubclass(RenderError, LifecycleError)


def test_problems_are_copied_not_shared() -> None:
    problems = ["p"]
    err = LifecycleError("m", problems=problems)
    problems.append("later")
    assert err.lines() == ["p"]
