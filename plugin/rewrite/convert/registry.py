"""The converter registry: one small pure function per (old apiVersion, kind) -> new apiVersion.

A converter takes the object (never mutated: changed paths are copied) and a ``Notes`` collector for
what the change means to a human, and returns the object in the new shape; the engine sets
``apiVersion``. Chains compose: flowcontrol v1beta1 -> v1beta2 -> v1beta3 -> v1 runs three steps, so
each field rule lives in exactly one place. Converter modules register themselves on import.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from argocd_lifecycle.errors import RenderError
from argocd_lifecycle.plugin.rewrite.files.keeps import KEEPS
from argocd_lifecycle.plugin.stream.manifest import Obj

#: modules holding converters; imported once, on first use
MODULES = (
    "argocd_lifecycle.plugin.rewrite.convert.conv_apps",
    "argocd_lifecycle.plugin.rewrite.convert.conv_ingress",
    "argocd_lifecycle.plugin.rewrite.convert.conv_hpa",
    "argocd_lifecycle.plugin.rewrite.convert.conv_crd",
    "argocd_lifecycle.plugin.rewrite.convert.conv_admission",
    "argocd_lifecycle.plugin.rewrite.convert.conv_misc",
    "argocd_lifecycle.plugin.rewrite.convert.conv_rename",
)


class ConversionError(RenderError):
    """An object cannot be converted without a human decision (the message says which)."""


@dataclass
class Notes:
    """What a conversion changed: ``warn`` alters behaviour, ``info`` does not."""

    warnings: list[str] = field(default_factory=list)
    infos: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        self.warnings.append(message)

    def info(self, message: str) -> None:
        self.infos.append(message)


Converter = Callable[[Obj, Notes], Obj]


@dataclass(frozen=True)
class Step:
    old: str
    kind: str
    new: str
    fn: Converter
    #: opt-in steps only: first minor serving ``new`` (the table has no row for a served version)
    since: tuple[int, int] | None = None
    #: True for a document text on which ``fn`` surely returns its input and notes nothing; None: no
    #: such promise (the object is needed)
    keeps_text: Callable[[str], bool] | None = None

    def keeps(self, text: str) -> bool:
        """Whether this step is a rename for the document ``text`` (identified from its lines, with no
        escapes, merge keys, aliases or tags: the caller checks that)."""
        if self.fn is rename:
            return True
        return self.keeps_text is not None and self.keeps_text(text)


STEPS: dict[tuple[str, str], Step] = {}
#: opt-in conversions of still-served versions (autoscaling/v1 HPA with alpha annotations)
OPT_IN: dict[tuple[str, str], Step] = {}


def converter(
    old: str,
    kinds: Iterable[str],
    new: str,
    *,
    opt_in_since: tuple[int, int] | None = None,
) -> Callable[[Converter], Converter]:
    """Register ``fn`` as the step from ``old`` to ``new`` for each kind (opt-in when ``opt_in_since``);
    which documents it keeps as they are is the one table of rewrite/files/keeps.py."""

    def register(fn: Converter) -> Converter:
        table = OPT_IN if opt_in_since else STEPS
        for kind in kinds:
            if (old, kind) in table:
                raise RuntimeError(f"two converters for {old} {kind}")
            table[(old, kind)] = Step(old, kind, new, fn, opt_in_since, KEEPS.get((old, kind)))
        return fn

    return register


def rename(obj: Obj, notes: Notes) -> Obj:
    """Same fields in both versions: only apiVersion changes (the engine sets it)."""
    return obj


def renames(pairs: Iterable[tuple[str, Iterable[str], str]]) -> None:
    for old, kinds, new in pairs:
        converter(old, kinds, new)(rename)


_loaded: list[bool] = []


def load() -> None:
    if not _loaded:
        for name in MODULES:
            importlib.import_module(name)
        _loaded.append(True)


def chain(api_version: str, kind: str, to: str, *, opt_in: bool = False) -> list[Step] | None:
    """The steps from ``api_version`` to ``to``, or None when no registered path leads there."""
    load()
    steps: list[Step] = []
    current = api_version
    first = OPT_IN.get((api_version, kind)) if opt_in else None
    while current != to and len(steps) < 8:
        step = first if first is not None and not steps else STEPS.get((current, kind))
        if step is None:
            return None
        steps.append(step)
        current = step.new
    return steps if current == to else None
