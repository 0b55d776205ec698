"""One kind of object from the management cluster: list, watch from the list's resourceVersion, relist.

Runs in its own thread (the official client blocks) and hands every result to the event loop, so the
consumer is only ever touched from the loop's thread. After a 410 Gone it relists at once; after any
other failure (refused, dropped stream, 5xx, 403) it reports the watch broken, backs off with jitter
and relists, since a successful list is the only proof that the watch is whole again. A watch the
server ends normally is resumed from the last resourceVersion. Both the cluster Secrets (the
inventory) and the Applications (the mass-drop guard's baseline) are followed this way.

A consumer turns whatever an object holds into that object's problem, so it raises only on a bug of
ours; even then the loop goes on: the failure is logged (its type and line, never its message, which
may quote a Secret), the watch is reported broken (the service answers 503 past ``--max-staleness``,
readiness fails) and everything is listed again after a backoff, rather than a listing left half
taken in and never retried.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from argocd_lifecycle.backoff import Backoff
from argocd_lifecycle.bugs import describe
from argocd_lifecycle.kube.client import Kube, KubeError, KubeGone

log = logging.getLogger(__name__)

_PAGE = 500
Obj = dict[str, Any]


@dataclass(frozen=True)
class Consumer:
    """Where results go, each called on the event loop's thread."""

    listed: Callable[[list[Obj]], None]
    upserted: Callable[[Obj], None]
    deleted: Callable[[Obj], None]
    broken: Callable[[], None]


class _ConsumerFailed(Exception):
    """The consumer raised on something this watch handed it: list everything again."""


class ListWatch:
    def __init__(
        self,
        what: str,
        list_fn: Callable[..., Any],
        list_args: tuple[Any, ...],
        kube: Kube,
        consumer: Consumer,
        *,
        loop: asyncio.AbstractEventLoop,
        label_selector: str = "",
        watch_timeout: tuple[int, int] = (240, 300),
        backoff: Backoff | None = None,
    ) -> None:
        """``list_fn(*list_args, ...)`` is one of ``kube``'s list methods (a plain bound method: the
        client's watch reads its docstring)."""
        self.what, self.list_fn, self.list_args, self.kube = what, list_fn, list_args, kube
        self.consumer, self.loop, self.label_selector = consumer, loop, label_selector
        self.watch_timeout = watch_timeout
        self.backoff = backoff or Backoff()
        self._stop = threading.Event()
        self._consumer_failed = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"watch {what}", daemon=True)
        #: counts for tests and logs: lists done, watches opened, 410s seen
        self.lists = 0
        self.watches = 0
        self.expired = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _hand(self, fn: Callable[..., None], *args: Any) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._deliver, fn, args)

    def _deliver(self, fn: Callable[..., None], args: tuple[Any, ...]) -> None:
        """Run one consumer call on the loop; a failure breaks the watch instead of passing unseen."""
        try:
            fn(*args)
        except Exception as exc:
            log.error("%s: what the API sent was not taken in (%s): listing again", self.what, describe(exc))
            self._consumer_failed.set()
            if fn is not self.consumer.broken:
                self._deliver(self.consumer.broken, ())

    def _selector(self) -> dict[str, Any]:
        return {"label_selector": self.label_selector} if self.label_selector else {}

    def list_all(self) -> list[Obj]:
        """One full listing, paged (blocking; raises KubeError)."""
        return self._pages()[0]

    def _pages(self) -> tuple[list[Obj], str]:
        items: list[Obj] = []
        cont = ""
        while True:
            kwargs: dict[str, Any] = {**self._selector(), "limit": _PAGE}
            if cont:
                kwargs["_continue"] = cont
            page = self.kube.call(f"list {self.what}", self.list_fn, *self.list_args, **kwargs)
            items.extend(page.get("items") or [])
            meta = page.get("metadata") or {}
            cont = meta.get("continue") or ""
            if not cont:
                return items, str(meta.get("resourceVersion") or "")

    def _list(self) -> str:
        self._consumer_failed.clear()
        items, version = self._pages()
        self.lists += 1
        self._hand(self.consumer.listed, items)
        return version

    def _watch(self, version: str) -> str:
        if self._consumer_failed.is_set():
            raise _ConsumerFailed("the consumer failed on what this watch handed it")
        low, high = self.watch_timeout
        timeout = random.randint(low, high)
        self.watches += 1
        events = self.kube.watch(
            f"watch {self.what}",
            self.list_fn,
            *self.list_args,
            **self._selector(),
            resource_version=version,
            allow_watch_bookmarks=True,
            timeout_seconds=timeout,
            _request_timeout=(10, timeout + 30),
        )
        for kind, obj in events:
            if self._stop.is_set():
                break
            if self._consumer_failed.is_set():
                raise _ConsumerFailed("the consumer failed on what this watch handed it")
            version = str((obj.get("metadata") or {}).get("resourceVersion") or version)
            if kind in ("ADDED", "MODIFIED"):
                self._hand(self.consumer.upserted, obj)
            elif kind == "DELETED":
                self._hand(self.consumer.deleted, obj)
            self.backoff.reset()
        return version

    def _run(self) -> None:
        version = ""
        while not self._stop.is_set():
            try:
                if not version:
                    version = self._list()
                version = self._watch(version)
            except KubeGone as exc:
                self.expired += 1
                log.info("%s: watch expired (%s): listing again", self.what, exc.message)
                version = ""
                self._stop.wait(self.backoff.next())  # short at first; grows if 410s repeat
            except Exception as exc:
                message = exc.message if isinstance(exc, KubeError) else f"{type(exc).__name__}: {exc}"
                self._hand(self.consumer.broken)
                delay = self.backoff.next()
                log.warning("%s: watch broken: %s; retrying in %.1fs", self.what, message, delay)
                version = ""
                self._stop.wait(delay)
