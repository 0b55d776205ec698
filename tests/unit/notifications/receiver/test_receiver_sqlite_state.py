"""SQLite specifics: group commit and checkpoints off the event loop, private files."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import stat
import uuid
from pathlib import Path

import pytest

from argocd_lifecycle.notifications.receiver.sqlite_commit import CHECKPOINT_EVERY
from argocd_lifecycle.notifications.receiver.sqlite_state import SqliteState
from argocd_lifecycle.notifications.receiver.state import PENDING, Ingest, NewItem, StateError

pytestmark = pytest.mark.anyio


def item() -> NewItem:
    return NewItem(uuid.uuid4().hex, "slack", {"title": "x" * 500}, 1.0)


async def test_concurrent_writers_share_one_commit_and_all_are_durable(tmp_path: Path) -> None:
    store = SqliteState.open(str(tmp_path / "s.db"))
    commits: list[str] = []
    store.db.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    results = await asyncio.gather(*(store.record(Ingest(f"fp{n}", 60, [item()]), 1.0) for n in range(50)))
    assert all(results) and len(commits) == 1
    other = sqlite3.connect(tmp_path / "s.db")  # another connection sees only committed data
    assert other.execute("SELECT COUNT(*) FROM outbox WHERE state = ?", (PENDING,)).fetchone() == (50,)
    await store.close()


async def settle(store: SqliteState) -> None:
    while store.tx._checkpointing is not None:
        await asyncio.sleep(0.005)


async def test_checkpoints_run_off_the_loop_and_the_wal_starts_over(tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="argocd_lifecycle.notifications.receiver.sqlite_commit")
    path, wal = tmp_path / "s.db", tmp_path / "s.db-wal"
    store = SqliteState.open(str(path))
    assert store.db.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)  # never on the loop
    empty, sizes = path.stat().st_size, []
    for batch in range(3):
        for n in range(CHECKPOINT_EVERY):
            await store.record(Ingest(f"fp{batch}-{n}", 60, [item()]), 1.0)
        await settle(store)
        sizes.append(wal.stat().st_size)
    done = [r.getMessage() for r in caplog.records if r.getMessage().startswith("checkpoint:")]
    assert len(done) == 6  # two passes each
    assert all(m.split()[1] == m.split()[3] for m in done)  # every frame copied each time
    assert path.stat().st_size > empty + 2 * CHECKPOINT_EVERY * 500  # the rows reached the database file
    assert sizes[2] <= sizes[0] * 1.2  # the same WAL space is reused, not three times as much
    await store.close()


async def test_writers_wait_while_a_checkpoint_holds_the_wal(tmp_path: Path) -> None:
    store = SqliteState.open(str(tmp_path / "s.db"))
    store.tx._hold = hold = asyncio.Event()
    writer = asyncio.ensure_future(store.record(Ingest("fp", 60, [item()]), 1.0))
    await asyncio.sleep(0.05)
    assert not writer.done() and not store.db.in_transaction
    assert not await store.seen("fp", 1.0)  # reads go on meanwhile
    store.tx._hold = None
    hold.set()
    assert await writer
    await store.close()


async def test_housekeeping_keeps_flap_hits_for_one_window(tmp_path: Path) -> None:
    store = SqliteState.open(str(tmp_path / "s.db"))
    await store.record(Ingest("old", 60, flap_identity="id"), 1000.0)
    await store.record(Ingest("new", 60, flap_identity="id"), 1500.0)
    await store.housekeeping(1700.0, retention=86400, flap_window=600)
    assert store.db.execute("SELECT ts FROM flap_hits").fetchall() == [(1500.0,)]
    await store.close()


async def test_housekeeping_deletes_in_batches_until_nothing_expired_is_left(tmp_path: Path) -> None:
    store = SqliteState.open(str(tmp_path / "s.db"))
    for n in range(2500):
        await store.record(Ingest(f"fp{n}", 60), 1000.0)
    await store.record(Ingest("fresh", 3600), 1000.0)
    commits: list[str] = []
    store.db.set_trace_callback(lambda sql: commits.append(sql) if sql == "COMMIT" else None)
    await store.housekeeping(2000.0, retention=86400, flap_window=600)
    assert store.db.execute("SELECT fp FROM dedupe").fetchall() == [("fresh",)]
    assert len(commits) >= 3  # 2500 rows in batches of 1000, each committed on its own
    await store.close()


async def test_a_failed_change_rolls_back_alone_and_still_ends_the_transaction(tmp_path: Path) -> None:
    store = SqliteState.open(str(tmp_path / "s.db"))
    good = asyncio.ensure_future(store.record(Ingest("fp", 60, [item()]), 1.0))
    with pytest.raises(StateError):  # the same idempotency key twice: the outbox refuses it
        clash = NewItem("same", "slack", {}, 1.0)
        await store.record(Ingest("other", 60, [clash, clash]), 1.0)
    assert await good
    await asyncio.sleep(0)
    assert not store.db.in_transaction  # committed this turn, with the good change in it
    assert await store.seen("fp", 1.0) and not await store.seen("other", 1.0)
    await store.close()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_state_files_are_created_private(tmp_path: Path) -> None:
    folder = tmp_path / "new" / "state"
    store = SqliteState.open(str(folder / "s.db"))
    store.db.execute("CREATE TABLE probe (x)")  # a write, so the -wal and -shm files exist
    assert _mode(folder) == 0o700
    assert {p.name: _mode(p) for p in folder.iterdir()} == {"s.db": 0o600, "s.db-wal": 0o600, "s.db-shm": 0o600}


def test_looser_files_of_an_older_version_are_tightened(tmp_path: Path) -> None:
    SqliteState.open(str(tmp_path / "s.db")).db.close()
    for name in ("s.db", "s.db-wal", "s.db-shm"):
        (tmp_path / name).touch()
        os.chmod(tmp_path / name, 0o644)
    SqliteState.open(str(tmp_path / "s.db"))
    assert {n: _mode(tmp_path / n) for n in ("s.db", "s.db-wal", "s.db-shm")} == dict.fromkeys(
        ("s.db", "s.db-wal", "s.db-shm"), 0o600
    )


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o1777])
def test_a_folder_others_may_write_is_refused_and_left_alone(tmp_path: Path, mode: int) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, mode)
    with pytest.raises(StateError, match=rf"sqlite state folder {shared} may be written by group or others"):
        SqliteState.open(str(shared / "s.db"))
    assert list(shared.iterdir()) == [] and _mode(shared) == mode
