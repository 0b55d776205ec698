"""``--capi`` settings, read once at start-up: which namespaces to watch, which labels to copy."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import click

from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.capi.names import reserved

F = TypeVar("F", bound=Callable[..., object])
_NAMESPACE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
# a label key (optional DNS prefix, then a name), or such a key ending in one "*" glob
_LABEL_PREFIX = r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
_LABEL_KEY = re.compile(_LABEL_PREFIX + r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?\*?$")


@dataclass(frozen=True)
class CapiSettings:
    #: namespaces whose CAPI objects are watched; () = every namespace
    namespaces: tuple[str, ...] = ()
    #: label keys of the CAPI Cluster copied onto its Argo CD Secret (``key`` or ``prefix/*``)
    copy_labels: tuple[str, ...] = ()

    @classmethod
    def from_options(
        cls, *, capi: bool, namespaces: Iterable[str], copy_labels: Iterable[str], kubernetes: bool
    ) -> CapiSettings | None:
        """Flag values -> settings (None without ``--capi``); one UsageError naming the flag and value."""
        spaces = tuple(dict.fromkeys(n.strip() for n in namespaces))
        labels = tuple(dict.fromkeys(k.strip() for k in copy_labels))
        if not capi:
            if spaces or labels:
                raise UsageError("--capi-namespace and --capi-copy-label need --capi")
            return None
        if not kubernetes:
            raise UsageError("--capi needs Kubernetes: it cannot be combined with --clusters-from")
        for ns in spaces:
            if not _NAMESPACE.match(ns):
                raise UsageError(f"--capi-namespace: {ns!r} is not a namespace name")
        for key in labels:
            if not key or len(key) > 317 or not _LABEL_KEY.match(key):
                raise UsageError(f"--capi-copy-label: {key!r} is not a label key (or a key ending in '*')")
            if reserved(key.rstrip("*")):
                raise UsageError(f"--capi-copy-label: {key!r} names Argo CD's or argocd-lifecycle's own labels")
        return cls(spaces, labels)


def capi_options(func: F) -> F:
    """Click options of the Cluster API source, named like ``from_options``' arguments."""
    options = [
        click.option(
            "--capi/--no-capi",
            default=False,
            show_default=True,
            help="Register Cluster API clusters and follow their versions, deletion and scaling.",
        ),
        click.option(
            "--capi-namespace",
            "capi_namespaces",
            multiple=True,
            metavar="NS",
            help="Watch Cluster API objects in this namespace (repeatable; default: every namespace).",
        ),
        click.option(
            "--capi-copy-label",
            "capi_copy_labels",
            multiple=True,
            metavar="KEY",
            help="Copy this label of a CAPI Cluster onto its cluster Secret (repeatable; 'prefix/*' globs).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func
