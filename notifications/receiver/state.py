"""The state store contract: de-duplication marks, replay guard, cluster phases, storms, flaps,
silences and the durable outbox. ``sqlite:///path`` (one process) or ``redis://host:port/db``
(several replicas) -- both behind ``StateStore``.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from argocd_lifecycle.errors import LifecycleError
from argocd_lifecycle.notifications.receiver.silences import Silence

PENDING, DELIVERED, DEAD = "pending", "delivered", "dead"
T = TypeVar("T")


class StateError(LifecycleError):
    """The state store is unusable (bad URL, unreachable server, corrupt file). The API answers 503."""


def translated(errors: type[Exception], what: str) -> Callable[[type[T]], type[T]]:
    """Class decorator: the store's own errors leave its public coroutines as StateError."""

    def wrap(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        @functools.wraps(method)
        async def call(*args: Any, **kwargs: Any) -> Any:
            try:
                return await method(*args, **kwargs)
            except errors as exc:
                raise StateError(f"{what} state store: {type(exc).__name__}: {exc}") from exc

        return call

    def decorate(cls: type[T]) -> type[T]:
        for name, member in list(vars(cls).items()):
            if not name.startswith("_") and inspect.iscoroutinefunction(member):
                setattr(cls, name, wrap(member))
        return cls

    return decorate


@dataclass(frozen=True)
class NewItem:
    """An outbox item to add. ``id`` is the idempotency key sinks receive."""

    id: str
    receiver: str
    payload: dict[str, Any] = field(repr=False)
    not_before: float
    group_key: str = ""


@dataclass(frozen=True)
class GroupUpdate:
    """Replace the payload of the group's item that is still waiting, or add one if none is.

    A new item waits ``wait`` seconds (time to gather more alerts), and at least ``interval`` after
    the group's previous item, so a storm is one message updated rather than many repeated.
    """

    receiver: str
    group_key: str
    payload: dict[str, Any] = field(repr=False)
    new_id: str
    wait: float
    interval: float


@dataclass(frozen=True)
class Ingest:
    """What one accepted event changes, all at once: mark ``fingerprint`` for ``window`` seconds, add
    ``items``, apply ``groups`` and count one hit for ``flap_identity`` (when given)."""

    fingerprint: str
    window: float
    items: Sequence[NewItem] = ()
    groups: Sequence[GroupUpdate] = ()
    flap_identity: str = ""


#: the columns (SQLite) and hash fields (Redis) of an outbox item, both stores alike
OUTBOX_FIELDS = (
    "id",
    "seq",
    "receiver",
    "payload",
    "state",
    "attempts",
    "created",
    "not_before",
    "next_attempt",
    "group_key",
    "last_error",
    "finished",
)


@dataclass(frozen=True)
class OutboxItem:
    id: str
    seq: int
    receiver: str
    payload: dict[str, Any] = field(repr=False)
    state: str
    attempts: int
    created_at: float
    not_before: float
    next_attempt_at: float
    group_key: str = ""
    last_error: str = ""
    finished_at: float | None = None

    @classmethod
    def from_fields(cls, stored: Mapping[str, Any]) -> OutboxItem:
        """An item as a store keeps it (``OUTBOX_FIELDS``; Redis hands every value back as text)."""
        finished = stored.get("finished")
        return cls(
            id=str(stored["id"]),
            seq=int(stored["seq"]),
            receiver=str(stored["receiver"]),
            payload=json.loads(stored["payload"]),
            state=str(stored["state"]),
            attempts=int(stored["attempts"]),
            created_at=float(stored["created"]),
            not_before=float(stored["not_before"]),
            next_attempt_at=float(stored["next_attempt"]),
            group_key=str(stored["group_key"]),
            last_error=str(stored["last_error"]),
            finished_at=None if finished is None or finished == "" else float(finished),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "receiver": self.receiver,
            "state": self.state,
            "attempts": self.attempts,
            "createdAt": self.created_at,
            "nextAttemptAt": self.next_attempt_at,
            "lastError": self.last_error,
            "finishedAt": self.finished_at,
            "title": self.payload.get("title", ""),
            "kind": self.payload.get("kind", ""),
        }


class StateStore(Protocol):
    async def close(self) -> None: ...
    async def ping(self) -> None: ...

    # ingest
    async def seen(self, fingerprint: str, now: float) -> bool: ...
    async def record(self, change: Ingest, now: float) -> bool:
        """Atomically: unless ``change.fingerprint`` is marked, apply the whole change.
        Returns False (changing nothing) when it was already marked."""
        ...

    async def replayed(self, signature: str, now: float, ttl: float) -> bool:
        """True when ``signature`` was seen within ttl; otherwise remember it and return False."""
        ...

    async def cluster_phase(self, cluster: str) -> str: ...
    async def set_cluster_phase(self, cluster: str, phase: str, now: float) -> None: ...
    async def storm_add(self, cluster: str, app: str, now: float) -> tuple[float, int, list[str], bool]:
        """Count one more app alert in the cluster's storm: (storm start, alerts, distinct apps, whether
        ``app`` is new to the storm)."""
        ...

    async def storm_clear(self, cluster: str) -> None: ...
    async def flap_count(self, identity: str, now: float, window: float) -> int: ...
    async def flap_begin(self, identity: str, now: float, until: float) -> bool:
        """Mark ``identity`` flapping until ``until``; True when it was not flapping already."""
        ...

    # silences
    async def add_silence(self, silence: Silence) -> None: ...
    async def silences(self, now: float) -> list[Silence]: ...
    async def delete_silence(self, silence_id: str) -> bool: ...

    # outbox
    async def claim(self, receiver: str, now: float, lease: float) -> OutboxItem | None:
        """The receiver's first due item, leased for ``lease`` seconds; None when its head is not due."""
        ...

    async def delivered(self, item_id: str, now: float) -> None: ...
    async def retry(self, item_id: str, attempts: int, next_attempt_at: float, error: str) -> None: ...
    async def dead(self, item_id: str, attempts: int, error: str, now: float) -> None: ...
    async def replay(self, item_id: str, now: float) -> bool:
        """Make the dead letter ``item_id`` pending again, due now with no attempts; False when there is
        no dead letter with that id."""
        ...

    async def outbox(self, state: str, limit: int) -> list[OutboxItem]: ...
    async def outbox_counts(self) -> dict[str, int]: ...
    async def housekeeping(self, now: float, *, retention: float, flap_window: float) -> None:
        """Drop what has expired: marks, flap hits older than ``flap_window``, deliveries older than
        ``retention``. Dead letters stay until someone looks at them."""
        ...
