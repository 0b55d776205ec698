"""Jinja2 templates in a sandbox with StrictUndefined: a typo is an error, not an empty string."""

from __future__ import annotations

from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from argocd_lifecycle.errors import RenderError


class JinjaRenderer:
    def __init__(self, context: dict[str, Any]) -> None:
        self._env = SandboxedEnvironment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)
        self._context = context

    def render(self, text: str, source: str) -> str:
        try:
            return self._env.from_string(text).render(self._context)
        except jinja2.TemplateSyntaxError as exc:
            raise RenderError(f"{source}:{exc.lineno}: Jinja2 syntax error: {exc.message}") from exc
        except jinja2.UndefinedError as exc:
            raise RenderError(f"{source}: Jinja2 error: {exc.message}") from exc
        except jinja2.exceptions.SecurityError as exc:
            raise RenderError(f"{source}: Jinja2 sandbox refused: {exc}") from exc
        except jinja2.TemplateError as exc:
            raise RenderError(f"{source}: Jinja2 error: {exc}") from exc
        except (TypeError, ValueError, ZeroDivisionError, KeyError, AttributeError) as exc:
            raise RenderError(f"{source}: Jinja2 template failed: {type(exc).__name__}: {exc}") from exc
