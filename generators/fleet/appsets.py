"""The ApplicationSets of every watched namespace, by name: where the ApplicationSet of a request lives.

Argo CD's plugin-generator request names the ApplicationSet but not its namespace
(``applicationSetName`` only), and two tenants may each have an ApplicationSet ``web``. Judging one's
answer against the other's Applications would guard the wrong thing, so a request is placed only when
its name exists in exactly one watched namespace, or when its input parameter
``applicationSetNamespace`` names a watched namespace holding it. "Exactly one" holds only while the
generator sees every namespace Argo CD's ApplicationSet controller takes ApplicationSets from
(argocd-cmd-params-cm, argocd_params.py): where it does not, a name found once may still be another
namespace's, so only the parameter places it. Otherwise ``Placement.problem`` says why and how to fix
it, and the service answers 503: never a guessed baseline.

Only the name, namespace, uid and the template's project of each ApplicationSet are kept.

Argo CD and the generator see a new ApplicationSet at once, so Argo CD's first request often comes
before the generator's watch brings it: "no ApplicationSet", 503, and Argo CD would ask again only
minutes later. A name refused that way is remembered (bounded, for ``MISSED_SECONDS``); when the watch
brings it, ``on_appeared`` asks that ApplicationSet to refresh, so it is answered within a second.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.generators.fleet.argocd_params import APPSET_NAMESPACES, ARGOCD_CMD_PARAMS_CM, shown
from argocd_lifecycle.generators.fleet.list_watch import Consumer
from argocd_lifecycle.generators.fleet.namespaces import GRANT, Namespaces, ScopeHealth, in_scope
from argocd_lifecycle.generators.fleet.view import NAMESPACE_PARAMETER, Placement, qualified, split_key

PLURAL = "applicationsets"
#: namespaces named in a message; the rest are counted
_NAMED = 10


@dataclass(frozen=True)
class _AppSet:
    uid: str
    project: str


def _project(obj: dict[str, Any]) -> str:
    """``spec.template.spec.project`` when a plain string (a templated one, ``{{...}}``, is known only
    per Application)."""
    spec = obj.get("spec")
    template = spec.get("template") if isinstance(spec, dict) else None
    inner = template.get("spec") if isinstance(template, dict) else None
    project = inner.get("project") if isinstance(inner, dict) else None
    if not isinstance(project, str) or "{{" in project or len(project) > 253:
        return ""
    return project


#: how long a name refused for not being seen yet is remembered, and how many such names
MISSED_SECONDS, MAX_MISSED = 300.0, 1024


class AppSetIndex:
    """Every watched ApplicationSet, by name then namespace; touched only on the event loop's thread."""

    def __init__(self, namespaces: Namespaces, *, unwatched: tuple[str, ...] = ()) -> None:
        self.namespaces = namespaces
        #: the patterns of Argo CD's ApplicationSet namespaces the watch does not cover (argocd_params.py)
        self.unwatched = unwatched
        self.health = ScopeHealth(namespaces.scopes)
        self._by_name: dict[str, dict[str, _AppSet]] = {}
        #: names refused because no watched namespace held them, and when (monotonic)
        self._missed: dict[str, float] = {}
        #: called with the key (``view.qualified``) of a refused ApplicationSet the watch has just brought
        self.on_appeared: Callable[[str], None] | None = None

    def synced(self) -> bool:
        return self.health.synced()

    def stale_seconds(self) -> float:
        return self.health.stale_seconds()

    def place(self, name: str, namespace: str) -> Placement:
        home = self.namespaces.home
        found = self._by_name.get(name, {})
        if namespace:
            if not self.namespaces.watched(namespace):
                return self._unplaced(
                    name,
                    namespace,
                    f"input parameter {NAMESPACE_PARAMETER} names namespace {namespace!r}, which this generator "
                    f"does not watch (it watches {self.namespaces.describe()}); grant the watch with {GRANT}",
                )
            if namespace not in found:
                self._miss(name)
                return self._unplaced(
                    name,
                    namespace,
                    f"no ApplicationSet {name!r} in namespace {namespace!r} (input parameter {NAMESPACE_PARAMETER})",
                )
            return Placement(qualified(namespace, name, home), namespace, name, found[namespace].project)
        if len(found) == 1 and self.unwatched:
            (only, _), *_ = found.items()
            return self._unplaced(
                name,
                "",
                f"Argo CD's ApplicationSet controller also takes ApplicationSets from namespaces this generator "
                f"does not watch ({APPSET_NAMESPACES} in {ARGOCD_CMD_PARAMS_CM}: {shown(self.unwatched)}), so "
                f"the {name!r} found in namespace {only!r} may not be the one asking; set input parameter "
                f"{NAMESPACE_PARAMETER} to the ApplicationSet's own namespace in its plugin generator, or add "
                f"those namespaces (or '*') to {GRANT}",
            )
        if len(found) == 1:
            (only, appset), *_ = found.items()
            return Placement(qualified(only, name, home), only, name, appset.project)
        if not found:
            self._miss(name)
            return self._unplaced(
                name,
                "",
                f"no ApplicationSet {name!r} in the namespaces this generator watches "
                f"({self.namespaces.describe()}), so it cannot see the Applications an answer would delete; "
                f"if it lives in another namespace{self._unwatched_hint()}, grant the watch with {GRANT}",
            )
        spaces = sorted(found)
        listed = ", ".join(spaces[:_NAMED]) + (f" and {len(spaces) - _NAMED} more" if len(spaces) > _NAMED else "")
        return self._unplaced(
            name,
            "",
            f"ApplicationSets named {name!r} exist in {len(spaces)} namespaces ({listed}) and Argo CD's request "
            f"names none; set input parameter {NAMESPACE_PARAMETER} to the ApplicationSet's own namespace "
            "in its plugin generator",
        )

    def _unwatched_hint(self) -> str:
        return f" (Argo CD also takes ApplicationSets from {shown(self.unwatched)})" if self.unwatched else ""

    def _miss(self, name: str) -> None:
        self._missed.pop(name, None)  # the newest last: the oldest goes first when full
        if len(self._missed) >= MAX_MISSED:
            del self._missed[next(iter(self._missed))]
        self._missed[name] = time.monotonic()

    def _unplaced(self, name: str, namespace: str, why: str) -> Placement:
        message = f"cannot place ApplicationSet {name!r}: {why}; answering nothing rather than unguarded"
        return Placement("", namespace, name, problem=message)

    def uid(self, key: str) -> str:
        """The uid of the ApplicationSet a key names ("" when unknown)."""
        namespace, name = split_key(key, self.namespaces.home)
        appset = self._by_name.get(name, {}).get(namespace)
        return appset.uid if appset is not None else ""

    # -- changes (the Consumer of each scope's list/watch) ---------------------------------------------
    def consumer(self, scope: str) -> Consumer:
        return Consumer(
            lambda items: self.listed(items, scope), self.upserted, self.deleted, lambda: self.health.broken(scope)
        )

    def listed(self, items: list[dict[str, Any]], scope: str) -> None:
        for name in list(self._by_name):
            spaces = self._by_name[name]
            for namespace in [ns for ns in spaces if in_scope(ns, scope)]:
                del spaces[namespace]
            if not spaces:
                del self._by_name[name]
        for obj in items:
            self.upserted(obj)
        self.health.listed(scope)

    def upserted(self, obj: dict[str, Any]) -> None:
        namespace, name = _where(obj)
        if not name or not self.namespaces.watched(namespace):
            return
        meta = obj.get("metadata") or {}
        spaces = self._by_name.setdefault(name, {})
        new = namespace not in spaces
        spaces[namespace] = _AppSet(str(meta.get("uid") or ""), _project(obj))
        missed = self._missed.pop(name, None) if new else None
        if missed is not None and time.monotonic() - missed <= MISSED_SECONDS and self.on_appeared is not None:
            self.on_appeared(qualified(namespace, name, self.namespaces.home))

    def deleted(self, obj: dict[str, Any]) -> None:
        namespace, name = _where(obj)
        spaces = self._by_name.get(name)
        if spaces is not None:
            spaces.pop(namespace, None)
            if not spaces:
                del self._by_name[name]


def _where(obj: dict[str, Any]) -> tuple[str, str]:
    meta = obj.get("metadata") or {}
    return str(meta.get("namespace") or ""), str(meta.get("name") or "")
