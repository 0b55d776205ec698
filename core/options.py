"""Command settings declared once: each ``Option`` of a table holds a flag's name, default, range and
help; the table builds the click options and checks the same range on values that come from a caller
other than click (tests, benchmarks, the wiring), so a setting is never declared a second time.

A default may be read from the frozen settings value that holds it (``default=Limits.idle_timeout``),
and ``shown`` writes it as the flag takes it (``10s``), so ``--help`` and the value agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import click

from argocd_lifecycle.errors import UsageError

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Option:
    #: ``--max-staleness``, or ``--capi/--no-capi`` for an on/off pair
    flag: str
    help: str = ""
    default: Any = None
    #: a click type or a Python type (``float``, ``int``); with ``low``/``high`` a range of it
    type: Any = None
    low: float | None = None
    high: float | None = None
    #: the range's lower end is excluded (a timeout must be longer than zero)
    low_open: bool = False
    #: what the range's numbers count, for messages (``seconds``)
    unit: str = ""
    #: the keyword argument, when it is not the flag's name (``capi_namespaces`` for ``--capi-namespace``)
    name: str | None = None
    envvar: str | None = None
    multiple: bool = False
    is_flag: bool = False
    metavar: str | None = None
    #: the default written as the flag takes it (a duration in seconds as ``10s``): what click is given,
    #: and so what ``--help`` shows
    shown: Callable[[Any], str] | None = None

    @property
    def param(self) -> str:
        return self.name or self.flag.split("/")[0].removeprefix("--").replace("-", "_")

    def _click_type(self) -> Any:
        if self.low is None and self.high is None:
            return self.type
        if self.type is int:
            low, high = (None if v is None else int(v) for v in (self.low, self.high))
            return click.IntRange(low, high, min_open=self.low_open)
        return click.FloatRange(self.low, self.high, min_open=self.low_open)

    def decorate(self, func: F) -> F:
        extra: dict[str, Any] = {}
        if self.name is not None:
            extra["name"] = self.name
        if self.default is not None:
            # click takes the default as the flag's text would give it, so --help shows it that way
            extra["default"] = self.shown(self.default) if self.shown else self.default
            extra["show_default"] = self.default != ""
        for key in ("envvar", "metavar"):
            if getattr(self, key) is not None:
                extra[key] = getattr(self, key)
        if self.is_flag and "/" not in self.flag:
            extra["is_flag"] = True
        if self.multiple:
            extra["multiple"] = True
        if self._click_type() is not None:
            extra["type"] = self._click_type()
        decls = [self.flag, extra.pop("name")] if "name" in extra else [self.flag]
        return click.option(*decls, help=self.help, **extra)(func)

    def check(self, value: Any) -> Any:
        """``value`` when it is inside the range, else the UsageError click would give, as one line."""
        if value is None or (self.low is None and self.high is None):
            return value
        unit = f" {self.unit}" if self.unit else ""
        too_low = self.low is not None and (value <= self.low if self.low_open else value < self.low)
        too_high = self.high is not None and value > self.high
        if self.high is None and too_low:
            below = "is negative" if self.low == 0 and not self.low_open else f"must be more than {self.low:g}{unit}"
            raise UsageError(f"{self.flag.split('/')[0]}: {value:g} {below}")
        if too_low or too_high:
            raise UsageError(
                f"{self.flag.split('/')[0]}: {value:g} is not between {self.low:g} and {self.high:g}{unit}"
            )
        return value


class Options(Mapping[str, Option]):
    """A command's options by keyword argument, in declaration order; ``decorate`` adds them all."""

    def __init__(self, *options: Option) -> None:
        self._by_param = {o.param: o for o in options}

    def __getitem__(self, param: str) -> Option:
        return self._by_param[param]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_param)

    def __len__(self) -> int:
        return len(self._by_param)

    def decorate(self, func: F) -> F:
        for option in reversed(list(self._by_param.values())):
            func = option.decorate(func)
        return func

    def check(self, values: Mapping[str, Any]) -> None:
        """Every value of ``values`` that has an option, checked against its range."""
        for param, value in values.items():
            if param in self._by_param:
                self._by_param[param].check(value)

    def extended(self, more: Iterable[Option]) -> Options:
        return Options(*self._by_param.values(), *more)
