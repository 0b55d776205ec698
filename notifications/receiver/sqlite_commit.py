"""Group commit and off-loop checkpoints for one SQLite connection used from one event loop.

Statements run on the loop thread on purpose: each is a few indexed operations on a local file
(microseconds), cheaper than a hop to a worker thread. What is slow is I/O, and that is handled
here:

- Group commit: a write opens (or joins) the current transaction inside its own savepoint and then
  waits for the one COMMIT that ends the current loop turn. A burst of requests shares one commit,
  and nobody is answered before their change is committed. ``synchronous=NORMAL`` in WAL mode keeps
  every commit across a process crash (``kill -9``); only a power loss can take the last ones back.
- Checkpoints (copying the WAL into the database file, ending in an fsync) are off on the serving
  connection and run from a second connection in a worker thread, in two passes. The first copies
  the bulk while writers go on. During the second, which copies only what came meanwhile, new write
  transactions wait (reads and request parsing go on): with no frames appended then, the checkpoint
  completes and the next write starts the WAL over instead of growing it for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import AsyncIterator

log = logging.getLogger(__name__)
CHECKPOINT_EVERY = 500  # commits between checkpoints: each copies at most that much WAL


class GroupCommit:
    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self.db, self._path = db, path
        db.execute("PRAGMA wal_autocheckpoint=0")
        db.execute("PRAGMA journal_size_limit=67108864")  # the WAL file shrinks back to 64 MiB at most
        self._commit: asyncio.Future[None] | None = None
        self._commits = 0
        self._hold: asyncio.Event | None = None  # present while new write transactions must wait
        self._ready: asyncio.Event | None = None  # set once no transaction is open under the hold
        self._checkpointer: sqlite3.Connection | None = None
        self._checkpointing: asyncio.Task[None] | None = None

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[sqlite3.Connection]:
        """One all-or-nothing change in the shared transaction; returns once it is committed."""
        db = self.db
        while not db.in_transaction and self._hold is not None:
            await self._hold.wait()
        if not db.in_transaction:
            db.execute("BEGIN IMMEDIATE")
        db.execute("SAVEPOINT change")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK TO change")
            db.execute("RELEASE change")
            self._scheduled()  # the transaction still ends this turn, with the others' changes
            raise
        db.execute("RELEASE change")
        await asyncio.shield(self._scheduled())

    def _scheduled(self) -> asyncio.Future[None]:
        """The commit that ends this loop turn (scheduled on first use)."""
        if self._commit is None:
            loop = asyncio.get_running_loop()
            self._commit = loop.create_future()
            loop.call_soon(self._flush)
        return self._commit

    def _flush(self) -> None:
        done, self._commit = self._commit, None
        assert done is not None
        try:
            if self.db.in_transaction:
                self.db.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            done.set_exception(exc)
            done.exception()  # waiters get it raised; with none, asyncio need not warn
        else:
            done.set_result(None)
            self._commits += 1
        if self._ready is not None:
            # The last transaction begun before the hold has ended: nothing appends to the WAL now.
            self._ready.set()
        elif self._commits >= CHECKPOINT_EVERY and self._checkpointing is None:
            self._commits = 0
            self._checkpointing = asyncio.get_running_loop().create_task(self._checkpoint())

    async def _checkpoint(self) -> None:
        try:
            await asyncio.to_thread(self._checkpoint_now)  # the bulk, writers going on
            self._hold, self._ready = asyncio.Event(), asyncio.Event()
            if not self.db.in_transaction:
                self._ready.set()
            held = time.monotonic()
            await self._ready.wait()  # else the open transaction's commit sets it
            await asyncio.to_thread(self._checkpoint_now)  # the rest, no writer appending
            log.debug("checkpoint held writers for %.1f ms", (time.monotonic() - held) * 1000)
        except sqlite3.Error as exc:  # the next one retries; the WAL only grows meanwhile
            log.warning("sqlite checkpoint failed: %s", exc)
        finally:
            hold, self._hold, self._ready, self._checkpointing = self._hold, None, None, None
            if hold is not None:
                hold.set()

    def _checkpoint_now(self) -> None:
        if self._checkpointer is None:
            self._checkpointer = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
        busy, frames, copied = self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        log.debug("checkpoint: %d of %d WAL frames copied (busy=%d)", copied, frames, busy)

    async def close(self) -> None:
        if self._checkpointing is not None:
            await self._checkpointing
        if self._checkpointer is not None:
            self._checkpointer.close()
        if self.db.in_transaction:  # a change whose writer was cancelled before its commit
            self.db.execute("COMMIT")
        self.db.close()  # the last connection to close checkpoints and removes the WAL
