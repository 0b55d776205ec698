"""YAML reading and writing through libyaml's C loader and dumper (pure Python as a warned fallback)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import yaml

try:
    _Loader: type[Any] = yaml.CSafeLoader
    _Dumper: type[Any] = yaml.CSafeDumper
    HAVE_LIBYAML = True
except AttributeError:  # pragma: no cover - depends on how pyyaml was built
    _Loader, _Dumper = yaml.SafeLoader, yaml.SafeDumper
    HAVE_LIBYAML = False


class _NoAliasDumper(_Dumper):  # type: ignore[misc]
    """Write shared objects out in full: Kubernetes tooling expects plain documents, not anchors."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


_warned: list[bool] = []


def _warn_once() -> None:
    if not HAVE_LIBYAML and not _warned:
        _warned.append(True)
        print("warning: libyaml is missing; YAML is parsed in pure Python (slower)", file=sys.stderr)


def load_all(text: str) -> Iterator[Any]:
    """Yield each document of a YAML stream. Raises yaml.YAMLError with marks on bad syntax."""
    _warn_once()
    return yaml.load_all(text, Loader=_Loader)


def load(text: str) -> Any:
    _warn_once()
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader class


def dump(obj: Any) -> str:
    """Block-style YAML with keys in insertion order, so output follows the source order."""
    _warn_once()
    out: str = yaml.dump(
        obj,
        Dumper=_NoAliasDumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        width=1 << 30,
    )
    return out


def dump_all(objs: list[Any]) -> str:
    """A multi-document stream: documents separated by ``---``."""
    _warn_once()
    out: str = yaml.dump_all(
        objs,
        Dumper=_NoAliasDumper,
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=True,
        explicit_start=True,
        width=1 << 30,
    )
    return out
