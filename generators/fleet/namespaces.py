"""The namespaces whose ApplicationSets and Applications the generator watches (``--application-namespace``).

Argo CD acts on Applications and ApplicationSets outside its own namespace when told to
(``application.namespaces`` and ``applicationsetcontroller.namespaces`` in argocd-cmd-params-cm); the
mass-drop guard must see every one of them, so the generator is told the same namespaces. The Argo CD
namespace is always watched; ``*`` watches every namespace (one cluster-wide watch, a ClusterRole).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.backoff import Backoff
from argocd_lifecycle.errors import UsageError
from argocd_lifecycle.generators.fleet.list_watch import Consumer, ListWatch
from argocd_lifecycle.kube.client import Kube
from argocd_lifecycle.kube.names import is_namespace

ARGO_GROUP, ARGO_VERSION = "argoproj.io", "v1alpha1"

EVERY = "*"
FLAG = "--application-namespace"
#: how an operator grants a watch, named in every message that needs one
GRANT = f"generator.applicationNamespaces in the chart ({FLAG} of generator serve)"


@dataclass(frozen=True)
class Namespaces:
    #: the Argo CD namespace, always watched
    home: str
    #: the other namespaces watched, sorted, without ``home``
    others: tuple[str, ...] = ()
    #: ``*``: every namespace
    everywhere: bool = False

    @classmethod
    def parse(cls, home: str, values: Iterable[str]) -> Namespaces:
        """From the flag's values; a value that is neither ``*`` nor a namespace name is a UsageError."""
        others: set[str] = set()
        everywhere = False
        for value in values:
            if value == EVERY:
                everywhere = True
            elif is_namespace(value):
                others.add(value)
            else:
                raise UsageError(f"{FLAG}: {value[:80]!r} is not a namespace name (a DNS-1123 label) or '*'")
        others.discard(home)
        return cls(home, () if everywhere else tuple(sorted(others)), everywhere)

    @property
    def scopes(self) -> tuple[str, ...]:
        """What is listed and watched: ``*`` alone, or each namespace."""
        return (EVERY,) if self.everywhere else (self.home, *self.others)

    def watched(self, namespace: str) -> bool:
        return self.everywhere or namespace == self.home or namespace in self.others

    def describe(self) -> str:
        return "every namespace" if self.everywhere else ", ".join(self.scopes)


def in_scope(namespace: str, scope: str) -> bool:
    """Whether an object of ``namespace`` belongs to the listing of ``scope`` (a namespace or ``*``)."""
    return scope in (EVERY, namespace)


def custom_list(kube: Kube, plural: str, scope: str) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """The list call of Argo CD's ``plural`` in ``scope`` and its arguments, for a ListWatch."""
    if scope == EVERY:
        return kube.custom.list_cluster_custom_object, (ARGO_GROUP, ARGO_VERSION, plural)
    return kube.custom.list_namespaced_custom_object, (ARGO_GROUP, ARGO_VERSION, scope, plural)


def scope_label(scope: str) -> str:
    return "every namespace" if scope == EVERY else scope


class ScopeHealth:
    """Whether every scope of one kind of object was listed, and how long the worst has been broken."""

    def __init__(self, scopes: Iterable[str]) -> None:
        self.scopes = tuple(scopes)
        self._listed: set[str] = set()
        self._broken: dict[str, float] = {}

    def listed(self, scope: str) -> None:
        self._listed.add(scope)
        self._broken.pop(scope, None)

    def broken(self, scope: str) -> None:
        self._broken.setdefault(scope, time.monotonic())

    def synced(self) -> bool:
        return EVERY in self._listed or all(s in self._listed for s in self.scopes)

    def stale_seconds(self) -> float:
        return max((time.monotonic() - since for since in self._broken.values()), default=0.0)


class ScopedWatch(ListWatch):
    """The list/watch of Argo CD's ``plural`` (``applications``, ``applicationsets``) in one scope."""

    def __init__(
        self,
        kube: Kube,
        plural: str,
        scope: str,
        consumer: Consumer,
        loop: asyncio.AbstractEventLoop,
        *,
        watch_timeout: tuple[int, int] = (240, 300),
        backoff: Backoff | None = None,
    ) -> None:
        fn, args = custom_list(kube, plural, scope)
        what = f"{plural} in {scope_label(scope)}"
        super().__init__(what, fn, args, kube, consumer, loop=loop, watch_timeout=watch_timeout, backoff=backoff)
        self.scope = scope
