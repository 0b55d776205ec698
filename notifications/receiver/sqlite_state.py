"""SQLite state store: one file, one process, no server (group commit and checkpoints: sqlite_commit)."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

from argocd_lifecycle.notifications.receiver import sqlite_files
from argocd_lifecycle.notifications.receiver.silences import Silence
from argocd_lifecycle.notifications.receiver.sqlite_commit import GroupCommit
from argocd_lifecycle.notifications.receiver.state import (
    DEAD,
    DELIVERED,
    OUTBOX_FIELDS,
    PENDING,
    GroupUpdate,
    Ingest,
    NewItem,
    OutboxItem,
    StateError,
    translated,
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS dedupe (fp TEXT PRIMARY KEY, until REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS replay (sig TEXT PRIMARY KEY, until REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS clusters (name TEXT PRIMARY KEY, phase TEXT NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS storms (cluster TEXT PRIMARY KEY, started REAL NOT NULL, alerts INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS storm_apps (cluster TEXT NOT NULL, app TEXT NOT NULL, PRIMARY KEY (cluster, app));
CREATE TABLE IF NOT EXISTS flap_hits (identity TEXT NOT NULL, ts REAL NOT NULL);
CREATE INDEX IF NOT EXISTS flap_hits_by_identity ON flap_hits (identity, ts);
CREATE TABLE IF NOT EXISTS flapping (identity TEXT PRIMARY KEY, until REAL NOT NULL);
CREATE TABLE IF NOT EXISTS silences (id TEXT PRIMARY KEY, expires REAL NOT NULL, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, receiver TEXT NOT NULL,
  group_key TEXT NOT NULL, payload TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL,
  created REAL NOT NULL, not_before REAL NOT NULL, next_attempt REAL NOT NULL,
  claimed_until REAL NOT NULL DEFAULT 0, last_error TEXT NOT NULL DEFAULT '', finished REAL);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (receiver, state, not_before, seq);
CREATE INDEX IF NOT EXISTS outbox_finished ON outbox (state, finished);
CREATE INDEX IF NOT EXISTS dedupe_until ON dedupe (until);
CREATE INDEX IF NOT EXISTS replay_until ON replay (until);
CREATE INDEX IF NOT EXISTS flap_hits_by_time ON flap_hits (ts);
CREATE INDEX IF NOT EXISTS outbox_group ON outbox (receiver, group_key, seq) WHERE group_key != '';
"""
log = logging.getLogger(__name__)
_BATCH = 1000
#: cluster names cached by cluster_phase (recorded ones always; unknown ones while fewer are cached)
PHASE_CACHE = 4096
# table -> (key, expiry condition with one parameter): what housekeeping deletes, each via an index
_PRUNE = {
    "dedupe": ("fp", "until <= ?"),
    "replay": ("sig", "until <= ?"),
    "flapping": ("identity", "until <= ?"),
    "flap_hits": ("rowid", "ts <= ?"),
    "silences": ("id", "expires <= ?"),
    "outbox": ("seq", f"state = '{DELIVERED}' AND finished <= ?"),
}
_SELECT = f"SELECT {', '.join(OUTBOX_FIELDS)} FROM outbox"  # noqa: S608 - fixed column list


def _item(row: tuple[Any, ...]) -> OutboxItem:
    return OutboxItem.from_fields(dict(zip(OUTBOX_FIELDS, row, strict=True)))


@translated(sqlite3.Error, "sqlite")
class SqliteState:
    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self.db, self.tx = db, GroupCommit(db, path)
        # This process is the file's only user, so copies of what is read per event are exact.
        self._silences: list[Silence] | None = None
        self._phases: dict[str, str] = {}

    @classmethod
    def open(cls, path: str, *, release_leases: bool = True) -> SqliteState:
        if not path:
            raise StateError("sqlite state needs a file: sqlite:///relative/file.db or sqlite:////abs/file.db")
        sqlite_files.prepare(Path(path))
        try:
            db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=5000")
            db.executescript(_SCHEMA)
            if release_leases:
                db.execute("UPDATE outbox SET claimed_until = 0 WHERE state = ?", (PENDING,))
        except (OSError, sqlite3.Error) as exc:
            raise StateError(f"cannot open sqlite state {path}: {exc}") from exc
        return cls(db, path)

    async def close(self) -> None:
        await self.tx.close()

    async def ping(self) -> None:
        self.db.execute("SELECT 1").fetchone()

    async def seen(self, fingerprint: str, now: float) -> bool:
        row = self.db.execute("SELECT until FROM dedupe WHERE fp = ?", (fingerprint,)).fetchone()
        return row is not None and row[0] > now

    async def record(self, change: Ingest, now: float) -> bool:
        async with self.tx.write() as db:
            # mark unless marked and unexpired: the check and the mark in one statement
            marked = db.execute(
                "INSERT INTO dedupe VALUES (?, ?) ON CONFLICT (fp) DO UPDATE SET until = excluded.until"
                " WHERE dedupe.until <= ?",
                (change.fingerprint, now + change.window, now),
            ).rowcount
            if marked:
                if change.flap_identity:
                    db.execute("INSERT INTO flap_hits VALUES (?, ?)", (change.flap_identity, now))
                for item in change.items:
                    self._insert(item, now)
                for group in change.groups:
                    self._group(group, now)
        return bool(marked)

    def _insert(self, item: NewItem, now: float) -> None:
        self.db.execute(
            "INSERT INTO outbox (id, receiver, group_key, payload, state, attempts, created, not_before,"
            " next_attempt) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)",
            (
                item.id,
                item.receiver,
                item.group_key,
                json.dumps(item.payload),
                PENDING,
                now,
                item.not_before,
                item.not_before,
            ),
        )

    def _group(self, group: GroupUpdate, now: float) -> None:
        last = self.db.execute(
            "SELECT seq, state, claimed_until, created FROM outbox"
            " WHERE receiver = ? AND group_key = ? AND group_key != '' ORDER BY seq DESC LIMIT 1",
            (group.receiver, group.group_key),
        ).fetchone()
        if last is not None and last[1] == PENDING and last[2] <= now:  # waiting, not in flight
            self.db.execute("UPDATE outbox SET payload = ? WHERE seq = ?", (json.dumps(group.payload), last[0]))
            return
        not_before = now + group.wait if last is None else max(now, last[3] + group.interval)
        self._insert(NewItem(group.new_id, group.receiver, group.payload, not_before, group.group_key), now)

    async def replayed(self, signature: str, now: float, ttl: float) -> bool:
        row = self.db.execute("SELECT until FROM replay WHERE sig = ?", (signature,)).fetchone()
        if row is not None and row[0] > now:
            return True
        async with self.tx.write() as db:
            db.execute("INSERT OR REPLACE INTO replay VALUES (?, ?)", (signature, now + ttl))
        return False

    async def cluster_phase(self, cluster: str) -> str:
        # the lifecycle source names a bounded fleet, any other sender any name: unknown names are
        # cached only while the cache is small
        if cluster not in self._phases:
            row = self.db.execute("SELECT phase FROM clusters WHERE name = ?", (cluster,)).fetchone()
            if row is None and len(self._phases) >= PHASE_CACHE:
                return ""
            self._phases[cluster] = str(row[0]) if row else ""
        return self._phases[cluster]

    async def set_cluster_phase(self, cluster: str, phase: str, now: float) -> None:
        async with self.tx.write() as db:
            db.execute("INSERT OR REPLACE INTO clusters VALUES (?, ?, ?)", (cluster, phase, now))
        self._phases[cluster] = phase

    async def storm_add(self, cluster: str, app: str, now: float) -> tuple[float, int, list[str], bool]:
        async with self.tx.write() as db:
            db.execute("INSERT OR IGNORE INTO storms VALUES (?, ?, 0)", (cluster, now))
            db.execute("UPDATE storms SET alerts = alerts + 1 WHERE cluster = ?", (cluster,))
            new = db.execute("INSERT OR IGNORE INTO storm_apps VALUES (?, ?)", (cluster, app)).rowcount == 1
            started, alerts = db.execute("SELECT started, alerts FROM storms WHERE cluster = ?", (cluster,)).fetchone()
            apps = [r[0] for r in db.execute("SELECT app FROM storm_apps WHERE cluster = ? ORDER BY app", (cluster,))]
        return float(started), int(alerts), apps, new

    async def storm_clear(self, cluster: str) -> None:
        async with self.tx.write() as db:
            db.execute("DELETE FROM storms WHERE cluster = ?", (cluster,))
            db.execute("DELETE FROM storm_apps WHERE cluster = ?", (cluster,))

    async def flap_count(self, identity: str, now: float, window: float) -> int:
        row = self.db.execute(
            "SELECT COUNT(*) FROM flap_hits WHERE identity = ? AND ts > ?", (identity, now - window)
        ).fetchone()
        return int(row[0])

    async def flap_begin(self, identity: str, now: float, until: float) -> bool:
        async with self.tx.write() as db:
            row = db.execute("SELECT until FROM flapping WHERE identity = ?", (identity,)).fetchone()
            db.execute("INSERT OR REPLACE INTO flapping VALUES (?, ?)", (identity, until))
        return row is None or row[0] <= now

    async def add_silence(self, silence: Silence) -> None:
        async with self.tx.write() as db:
            body = json.dumps(silence.to_store())
            db.execute("INSERT INTO silences VALUES (?, ?, ?)", (silence.id, silence.expires_at, body))
        self._silences = None

    async def silences(self, now: float) -> list[Silence]:
        if self._silences is None:
            rows = self.db.execute("SELECT body FROM silences ORDER BY expires")
            self._silences = [Silence.from_store(json.loads(r[0])) for r in rows]
        return [s for s in self._silences if s.expires_at > now]

    async def delete_silence(self, silence_id: str) -> bool:
        async with self.tx.write() as db:
            deleted = db.execute("DELETE FROM silences WHERE id = ?", (silence_id,)).rowcount > 0
        self._silences = None
        return deleted

    async def claim(self, receiver: str, now: float, lease: float) -> OutboxItem | None:
        row = self.db.execute(
            f"{_SELECT} WHERE receiver = ? AND state = ? AND not_before <= ? ORDER BY not_before, seq LIMIT 1",
            (receiver, PENDING, now),
        ).fetchone()
        if row is None or row[8] > now:  # head not due: later items wait, keeping the order
            return None
        async with self.tx.write() as db:
            changed = db.execute(
                "UPDATE outbox SET claimed_until = ? WHERE seq = ? AND claimed_until <= ?", (now + lease, row[1], now)
            ).rowcount
        return _item(row) if changed else None

    async def _update(self, sql: str, args: tuple[Any, ...]) -> None:
        async with self.tx.write() as db:
            db.execute(sql, args)

    async def delivered(self, item_id: str, now: float) -> None:
        await self._update(
            "UPDATE outbox SET state = ?, finished = ?, attempts = attempts + 1, claimed_until = 0 WHERE id = ?",
            (DELIVERED, now, item_id),
        )

    async def retry(self, item_id: str, attempts: int, next_attempt_at: float, error: str) -> None:
        await self._update(
            "UPDATE outbox SET attempts = ?, next_attempt = ?, last_error = ?, claimed_until = 0 WHERE id = ?",
            (attempts, next_attempt_at, error, item_id),
        )

    async def dead(self, item_id: str, attempts: int, error: str, now: float) -> None:
        await self._update(
            "UPDATE outbox SET state = ?, attempts = ?, last_error = ?, finished = ?, claimed_until = 0 WHERE id = ?",
            (DEAD, attempts, error, now, item_id),
        )

    async def replay(self, item_id: str, now: float) -> bool:
        async with self.tx.write() as db:
            changed = db.execute(
                "UPDATE outbox SET state = ?, attempts = 0, not_before = ?, next_attempt = ?, last_error = '',"
                " finished = NULL, claimed_until = 0 WHERE id = ? AND state = ?",
                (PENDING, now, now, item_id, DEAD),
            ).rowcount
        return bool(changed)

    async def outbox(self, state: str, limit: int) -> list[OutboxItem]:
        order = "seq" if state == PENDING else "seq DESC"
        rows = self.db.execute(f"{_SELECT} WHERE state = ? ORDER BY {order} LIMIT ?", (state, limit))
        return [_item(r) for r in rows]

    async def outbox_counts(self) -> dict[str, int]:
        counts = {PENDING: 0, DELIVERED: 0, DEAD: 0}
        for state, n in self.db.execute("SELECT state, COUNT(*) FROM outbox GROUP BY state"):
            counts[state] = n
        return counts

    async def housekeeping(self, now: float, *, retention: float, flap_window: float) -> None:
        # At thousands of events a second a table can hold millions of expired rows: delete them in
        # indexed batches, each committed on its own, so requests keep being served in between.
        cutoffs = {
            "dedupe": now,
            "replay": now,
            "flapping": now,
            "flap_hits": now - flap_window,
            "silences": now,
            "outbox": now - retention,
        }
        for table, (key, condition) in _PRUNE.items():
            batch = f"SELECT {key} FROM {table} WHERE {condition} LIMIT {_BATCH}"  # noqa: S608 - fixed names
            sql = f"DELETE FROM {table} WHERE {key} IN ({batch})"  # noqa: S608
            while True:
                async with self.tx.write() as db:
                    deleted = db.execute(sql, (cutoffs[table],)).rowcount
                if deleted < _BATCH:
                    break
        self._silences = None
