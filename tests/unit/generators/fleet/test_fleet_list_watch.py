"""The list/watch loop when its consumer fails: the watch is reported broken and everything is listed again,
instead of a listing left half taken in and never retried (the freeze of issue 24, finding 2)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from argocd_lifecycle.backoff import Backoff
from argocd_lifecycle.generators.fleet.list_watch import Consumer, ListWatch


class _Api:
    """What ListWatch asks of ``Kube``: one page per list, and a watch that waits until it is stopped."""

    def __init__(self) -> None:
        self.stop = threading.Event()

    def call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    def watch(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Iterator[tuple[str, dict[str, Any]]]:
        yield "ADDED", {"metadata": {"name": "b", "resourceVersion": "2"}}
        self.stop.wait(0.05)


def _list(**kwargs: Any) -> dict[str, Any]:
    return {"items": [{"metadata": {"name": "a"}}], "metadata": {"resourceVersion": "1"}}


def test_a_consumer_that_fails_on_a_listing_breaks_the_watch_and_it_lists_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    listings: list[int] = []
    broken: list[int] = []

    def listed(items: list[dict[str, Any]]) -> None:
        listings.append(len(items))
        if len(listings) == 1:
            raise KeyError("s3cr3t")  # a bug of ours, quoting what it read

    async def story() -> None:
        api = _Api()
        consumer = Consumer(listed=listed, upserted=lambda obj: None, deleted=lambda obj: None,
                            broken=lambda: broken.append(1))  # fmt: skip
        watch = ListWatch("things", _list, (), api, consumer, loop=asyncio.get_running_loop(),  # type: ignore[arg-type]
                          backoff=Backoff(base=0.01, cap=0.02))  # fmt: skip
        watch.start()
        try:
            for _ in range(500):
                if len(listings) >= 2:
                    break
                await asyncio.sleep(0.01)
        finally:
            watch.stop()
            api.stop.set()

    asyncio.run(story())
    assert len(listings) >= 2 and broken, (listings, broken)
    assert "things: what the API sent was not taken in (KeyError at test_fleet_list_watch.py:" in caplog.text
    assert "s3cr3t" not in caplog.text
