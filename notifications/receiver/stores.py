"""Which state store a ``--state`` URL opens: the factory, apart from the interface (``state.py``) the
stores implement."""

from __future__ import annotations

from argocd_lifecycle.notifications.receiver.redis_state import RedisState
from argocd_lifecycle.notifications.receiver.sqlite_state import SqliteState
from argocd_lifecycle.notifications.receiver.state import StateError, StateStore


async def open_state(url: str, *, fresh_process: bool = True) -> StateStore:
    """Open the store named by ``url``. With SQLite the process is the only owner, so leases left by a
    killed predecessor are released at once (``fresh_process``) instead of waiting for them to expire."""
    if url.startswith("sqlite:///"):
        return SqliteState.open(url.removeprefix("sqlite:///"), release_leases=fresh_process)
    if url.startswith(("redis://", "rediss://", "unix://")):
        return await RedisState.open(url)
    raise StateError(f"--state {url!r}: use sqlite:///path/file.db or redis://host:port/db")
