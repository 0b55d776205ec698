"""Jinja2 templates in a bounded sandbox with StrictUndefined: a typo is an error, not an empty string.

Values never become YAML structure (see jinja_values.py): template text is ``Markup`` (the template's
literals, macros, ``{% set %}`` and ``{% filter %}`` blocks), everything else is data, and every
operation that touches data returns data. ``{{ data }}`` prints a placeholder that becomes one scalar;
``|safe`` is the one way to print raw text (the escape hatch, for text the template author controls).

Bounds: one time limit for every template of a render, ``range`` capped per call and in total, string
and list sizes capped on every operator, filter and method call (sizes are predicted before the work
for the ones that amplify: repetition, padding, replace, join, indent), and the output size.
"""

from __future__ import annotations

import functools
import re
import signal
import string
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import jinja2
from jinja2.compiler import CodeGenerator, Frame
from jinja2.nodes import Concat, Const
from jinja2.sandbox import ImmutableSandboxedEnvironment, safe_range
from markupsafe import Markup

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.render.jinja_values import RESERVED, Slots
from argocd_lifecycle.yaml.yamlio import format_size

#: no single string an operation makes may be longer (Kubernetes objects stay below 1.5 MiB)
MAX_TEXT = 2 * 1024 * 1024
#: nor any list longer
MAX_ITEMS = 100_000
#: range() items over the whole render (each call is also capped at Jinja's 100,000)
MAX_RANGE_TOTAL = 1_000_000
MAX_INT_BITS = 100_000
#: every template of one render together
TIME_LIMIT_SECONDS = 10.0
#: filters that make HTML: no meaning in YAML, and they would turn data into template text
_REMOVED_FILTERS = ("urlize", "xmlattr")
_REMOVED_GLOBALS = ("lipsum",)
_REFUSED_METHODS = frozenset({"translate", "maketrans", "format_map"})
_PERCENT_WIDTH = re.compile(r"%[-#0 +]*(\d*)(?:\.(\d+))?")
_NUMBERS = re.compile(r"\d+")


class BoundError(jinja2.exceptions.SecurityError):
    """An operation would go past one of the sandbox's bounds."""


class Timeout(BaseException):
    """The render's time is up (a BaseException: no ``except Exception`` inside Jinja may swallow it)."""


def _is_data(value: Any) -> bool:
    """Template text is Markup; numbers, booleans and None cannot carry structure; the rest is data."""
    return not isinstance(value, Markup | int | float | bool | type(None))


def _plain(value: Any) -> Any:
    if isinstance(value, Markup):
        return str(value)
    if isinstance(value, list | tuple):
        return type(value)(_plain(v) for v in value)
    return value


def _size_check(result: Any, what: str) -> Any:
    if isinstance(result, str) and len(result) > MAX_TEXT:
        raise BoundError(f"{what} makes a string over {MAX_TEXT >> 20} MiB")
    if isinstance(result, list | tuple) and len(result) > MAX_ITEMS:
        raise BoundError(f"{what} makes a list over {MAX_ITEMS:,} items")
    return result


def _refuse_over(size: int, what: str) -> None:
    if size > MAX_TEXT:
        raise BoundError(f"{what} would make a string over {MAX_TEXT >> 20} MiB")


def _predict(name: str, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse a filter or string method that would build something too large, before it does."""
    text = value if isinstance(value, str) else ""
    ints = [a for a in (*args, *kwargs.values()) if isinstance(a, int) and not isinstance(a, bool)]
    if name in ("center", "ljust", "rjust", "zfill", "expandtabs", "batch", "slice") and any(
        abs(n) > MAX_TEXT for n in ints
    ):
        raise BoundError(f"{name}(): a size over {MAX_TEXT:,}")
    if name in ("batch", "slice") and any(abs(n) > MAX_ITEMS for n in ints):
        raise BoundError(f"{name}(): more than {MAX_ITEMS:,} items")
    if name == "expandtabs" and ints:
        _refuse_over(len(text) + text.count("\t") * ints[0], name)
    elif name == "replace" and len(args) >= 2:
        old, new = str(args[0]), str(args[1])
        hits = text.count(old) if old else len(text) + 1
        _refuse_over(len(text) + hits * max(0, len(new) - len(old)), name)
    elif name == "indent":
        width = args[0] if args else kwargs.get("width", 4)
        step = len(width) if isinstance(width, str) else int(width)
        _refuse_over(len(text) + (text.count("\n") + 1) * max(step, 0), name)
    elif name == "wordwrap":
        width = int(args[0] if args else kwargs.get("width", 79))
        wrap = args[2] if len(args) > 2 else kwargs.get("wrapstring") or "\n"
        _refuse_over(len(text) + (len(text) // max(width, 1) + 1) * len(str(wrap)), name)
    elif name in ("format", "%"):
        widths = [int(n) for m in _PERCENT_WIDTH.finditer(text) for n in m.groups() if n]
        if any(w > MAX_TEXT for w in widths) or any(abs(n) > MAX_TEXT for n in ints):
            raise BoundError(f"{name}: a field width over {MAX_TEXT:,}")


class _YamlCodeGenerator(CodeGenerator):
    """Literal strings are template text (Markup); ``~`` goes through the environment's bounded join."""

    def visit_Const(self, node: Const, frame: Frame) -> None:
        value = node.as_const(frame.eval_ctx)
        if type(value) is str:
            self.write(f"Markup({value!r})")
        else:
            super().visit_Const(node, frame)

    def visit_Concat(self, node: Concat, frame: Frame) -> None:
        self.write("environment.concat_values((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


@jinja2.pass_environment
def _finalize(env: _YamlSandbox, value: Any) -> Any:
    """Every ``{{ ... }}``: template text is printed as is, anything else as a placeholder."""
    if isinstance(value, Markup):
        return value
    if isinstance(value, jinja2.Undefined):
        str(value)  # StrictUndefined raises here, inside the render
    return env.slots.put(value)


def _as_text(value: Any, *args: Any, **kwargs: Any) -> Any:
    """``escape``, ``e``, ``forceescape``, ``tojson``: the result is data, like their input."""
    return value if isinstance(value, Markup) else str(value)


class _YamlSandbox(ImmutableSandboxedEnvironment):
    code_generator_class = _YamlCodeGenerator
    intercepted_binops = frozenset({"+", "*", "**", "%"})

    def __init__(self, deadline: float) -> None:
        super().__init__(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=True)
        self.finalize = _finalize
        self.deadline = deadline
        self.range_left = MAX_RANGE_TOTAL
        self.slots = Slots()
        tojson = self.filters["tojson"]
        self.filters = {n: self._guard(n, f) for n, f in self.filters.items() if n not in _REMOVED_FILTERS}
        self.filters.update(escape=_as_text, e=_as_text, forceescape=_as_text)
        self.filters["tojson"] = self._guard("tojson", functools.wraps(tojson)(lambda *a, **k: str(tojson(*a, **k))))
        for name in _REMOVED_GLOBALS:
            self.globals.pop(name, None)
        self.globals["range"] = self._range

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise Timeout

    def _range(self, *args: int) -> range:
        self.tick()
        rng = safe_range(*args)
        self.range_left -= len(rng)
        if self.range_left < 0:
            raise BoundError(f"range() makes more than {MAX_RANGE_TOTAL:,} items over the render")
        return rng

    def _guard(self, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        lead = 1 if getattr(func, "jinja_pass_arg", None) is not None else 0

        @functools.wraps(func)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            self.tick()
            head, (value, *rest) = args[:lead], args[lead:]
            if name == "safe":
                return func(*args, **kwargs)
            operands = [value, *rest, *kwargs.values()]
            data = any(_is_data(v) for v in operands)
            if data:  # data in, data out: template text among the operands becomes plain text
                value, rest, kwargs = (
                    _plain(value),
                    [_plain(v) for v in rest],
                    {k: _plain(v) for k, v in kwargs.items()},
                )
            if name == "join" and not isinstance(value, str):
                value = list(value)
                sep = str(rest[0] if rest else kwargs.get("d", ""))
                _refuse_over(sum(len(str(v)) for v in value) + len(sep) * len(value), name)
            _predict(name, value, tuple(rest), kwargs)
            result = func(*head, value, *rest, **kwargs)
            if data and isinstance(result, Markup):
                result = str(result)
            return _size_check(result, f"|{name}")

        return guarded

    def call_binop(self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any) -> Any:
        self.tick()
        if operator == "*":
            seq, times = (left, right) if isinstance(right, int) else (right, left)
            if isinstance(seq, str | list | tuple) and isinstance(times, int):
                size = len(seq) * times
                if (isinstance(seq, str) and size > MAX_TEXT) or (not isinstance(seq, str) and size > MAX_ITEMS):
                    what = "string" if isinstance(seq, str) else "list"
                    raise BoundError(f"repeating a {what} {times:,} times is over the size limit")
            elif (
                isinstance(left, int)
                and isinstance(right, int)
                and left.bit_length() + right.bit_length() > MAX_INT_BITS
            ):
                raise BoundError(f"a product over {MAX_INT_BITS:,} bits")
        elif operator == "**" and isinstance(left, int) and isinstance(right, int):
            if abs(left) > 1 and right > 0 and left.bit_length() * right > MAX_INT_BITS:
                raise BoundError(f"a power over {MAX_INT_BITS:,} bits")
        elif operator == "%" and isinstance(left, str):
            _predict("%", left, right if isinstance(right, tuple) else (right,), {})
        if operator in ("+", "%") and (_is_data(left) or _is_data(right)):
            left, right = _plain(left), _plain(right)
            if isinstance(right, dict):
                right = {k: _plain(v) for k, v in right.items()}
        result = super().call_binop(context, operator, left, right)
        if operator in ("+", "%") and isinstance(result, Markup) and (_is_data(left) or _is_data(right)):
            result = str(result)
        return _size_check(result, f"the {operator} operator")

    def call(__self, __context: jinja2.runtime.Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        __self.tick()
        subject = getattr(__obj, "__self__", None)
        if not isinstance(subject, str):
            return super().call(__context, __obj, *args, **kwargs)
        name = getattr(__obj, "__name__", "")
        if name in _REFUSED_METHODS:
            raise BoundError(f"str.{name}() is not available in templates")
        if any(_is_data(v) for v in (subject, *args, *kwargs.values())):
            subject, args, kwargs = _plain(subject), _plain(args), {k: _plain(v) for k, v in kwargs.items()}
            __obj = getattr(subject, name)
        if name == "join" and args:
            items = list(args[0])
            _refuse_over(sum(len(str(v)) for v in items) + len(subject) * len(items), "join")
            args = (items, *args[1:])
        _predict(name, subject, args, kwargs)
        return _size_check(super().call(__context, __obj, *args, **kwargs), f"str.{name}()")

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """``str.format`` (reached as an attribute, not through ``call``): the same data rule and a cap
        on field widths, checked before formatting."""
        if super().wrap_str_format(value) is None:
            return None
        subject, name = value.__self__, value.__name__

        def bounded(*args: Any, **kwargs: Any) -> str:
            self.tick()
            if name == "format_map":
                raise BoundError("str.format_map() is not available in templates")
            text, data = subject, any(_is_data(v) for v in (subject, *args, *kwargs.values()))
            if data:
                text, args, kwargs = _plain(subject), _plain(args), {k: _plain(v) for k, v in kwargs.items()}
            specs = [spec for _, _, spec, _ in string.Formatter().parse(text) if spec]
            widths = [int(n) for spec in specs for n in _NUMBERS.findall(spec)]
            numbers = [a for a in (*args, *kwargs.values()) if isinstance(a, int) and not isinstance(a, bool)]
            if any(w > MAX_TEXT for w in widths) or any(abs(n) > MAX_TEXT for n in numbers):
                raise BoundError(f"str.format(): a field width over {MAX_TEXT:,}")
            inner = super(_YamlSandbox, self).wrap_str_format(getattr(text, name))
            assert inner is not None
            result = inner(*args, **kwargs)
            if data and isinstance(result, Markup):
                result = str(result)
            return str(_size_check(result, "str.format()"))

        return bounded

    def concat_values(self, parts: tuple[Any, ...]) -> Any:
        """``a ~ b``: template text when every part is template text, else data (plain text)."""
        self.tick()
        if all(isinstance(p, Markup) for p in parts):
            return _size_check(Markup("").join(parts), "the ~ operator")
        pieces = [str(p) for p in parts]
        _refuse_over(sum(map(len, pieces)), "the ~ operator")
        return "".join(pieces)


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    """Interrupt a render that runs past its time, between any two Python steps (main thread only;
    elsewhere the checks on every call, operator and range() still apply)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise Timeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class JinjaRenderer:
    """Renders every template of one app with one time budget; ``render`` returns the text with
    placeholders and the values they stand for."""

    def __init__(self, context: dict[str, Any], *, max_output: int, time_limit: float = TIME_LIMIT_SECONDS) -> None:
        self._deadline = time.monotonic() + time_limit
        self._time_limit = time_limit
        self._max_output = max_output
        self._context = context

    def render(self, text: str, source: str) -> tuple[str, Slots]:
        if RESERVED.search(text):
            raise RenderError(f"{source}: refused: the template holds characters U+E000..U+E01F (reserved)")
        env = _YamlSandbox(self._deadline)
        try:
            with _alarm(self._deadline - time.monotonic()):
                env.tick()
                template = env.from_string(text)
                out: list[str] = []
                size = 0
                for chunk in template.generate(self._context):
                    size += len(chunk)
                    if size > self._max_output:
                        raise BoundError(f"the output is over {format_size(self._max_output)}")
                    out.append(chunk)
        except Timeout:
            raise RenderError(
                f"{source}: Jinja2 render stopped: the templates took more than {self._time_limit:g}s"
            ) from None
        except jinja2.TemplateSyntaxError as exc:
            raise RenderError(f"{source}:{exc.lineno}: Jinja2 syntax error: {exc.message}") from exc
        except jinja2.UndefinedError as exc:
            raise RenderError(f"{source}: Jinja2 error: {exc.message}") from exc
        except jinja2.exceptions.SecurityError as exc:
            raise RenderError(f"{source}: Jinja2 sandbox refused: {exc}") from exc
        except jinja2.TemplateError as exc:
            raise RenderError(f"{source}: Jinja2 error: {exc}") from exc
        except (OverflowError, MemoryError, RecursionError) as exc:
            raise RenderError(f"{source}: Jinja2 sandbox refused: {type(exc).__name__}: {exc}") from exc
        except (TypeError, ValueError, ZeroDivisionError, KeyError, AttributeError, IndexError) as exc:
            raise RenderError(f"{source}: Jinja2 template failed: {type(exc).__name__}: {exc}") from exc
        return "".join(out), env.slots
