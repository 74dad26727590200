"""Saving running rooms, so that a game survives a restart or a move.

A room is saved after every change, before the change is acknowledged:
its *snapshot* (:meth:`engine.room.RoomCore.to_snapshot`: seats, version,
timers and the game state) replaces the last one, and the new entries of its
*action log* are appended. Saves from many rooms made in the same event-loop
tick go out together (*group commit*): one pipeline to Redis, one
transaction to the database.

Two stores:

- :class:`RedisSnapshots` (with ``REDIS_URL``): keys under a prefix. A save
  is *fenced*: it only lands while this process holds the room's lease (see
  :mod:`app.cluster`), so a process that lost a room cannot overwrite the
  new owner's state.
- :class:`LocalSnapshots` (the embedded default, SQLite): a SQLite file of
  its own beside the database (``kartu.db`` -> ``kartu.rooms.db``), written
  directly on the event loop, never synced to disk by SQLite itself. A save
  costs microseconds instead of a trip to a database thread, and it is
  safe from a crash or kill of the process (the kernel holds what was
  written); only a power cut can take back the last seconds of rooms in
  progress, and only of them: players, results and leaderboards stay in
  the database proper, with its own guarantees. The file holds rooms in
  progress only; a finished room's rows are deleted.
- :class:`DbSnapshots` (PostgreSQL without Redis): rows in
  ``room_snapshots`` and ``room_log`` through :class:`app.store.Store`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import orjson
from redis.asyncio import Redis

from app.store import Store

log = logging.getLogger("kartu.snapshots")

T = TypeVar("T")


@dataclass
class RoomSave:
    """One room's save: the snapshot, the log entries from ``log_base`` on, the lobby line."""

    room_id: str
    snapshot: dict[str, Any] | None  # None: only new log entries (the game alone changed)
    log_base: int
    log_entries: list[dict[str, Any]]
    summary: dict[str, Any] | None  # the lobby line; None with no snapshot
    active: bool  # waiting or playing: listed, and taken over if its process dies


class SnapshotStore(Protocol):
    async def save(self, save: RoomSave) -> bool:
        """True once saved; False if this process may no longer write the room."""
        ...

    async def load(self, room_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        ...

    async def active_rooms(self) -> list[str]:
        ...

    async def close(self) -> None:
        ...


@dataclass
class _Batcher(Generic[T]):
    """Collects items during one event-loop tick and flushes them together."""

    flush: Callable[[list[T]], Awaitable[list[bool]]]
    _items: list[tuple[T, asyncio.Future[bool]]] = field(default_factory=list)
    _task: asyncio.Task[None] | None = None

    async def submit(self, item: T) -> bool:
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._items.append((item, future))
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())
        return await future

    async def _run(self) -> None:
        await asyncio.sleep(0)  # let the other rooms of this tick join the batch
        while self._items:
            batch, self._items = self._items, []
            try:
                results = await self.flush([item for item, _ in batch])
            except Exception as err:
                for _, future in batch:
                    if not future.done():
                        future.set_exception(err)
                continue
            for (_, future), ok in zip(batch, results, strict=True):
                if not future.done():
                    future.set_result(ok)


# KEYS: lease, snapshot, log, active set, lobby hash
# ARGV: process, snapshot json, room id, active 1/0, summary json, log base, entries...
_SAVE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2]) end
local have = redis.call('LLEN', KEYS[3])
local base = tonumber(ARGV[6])
for i = 7, #ARGV do
  if base + (i - 7) >= have then redis.call('RPUSH', KEYS[3], ARGV[i]) end
end
if ARGV[5] == '' then return 1 end
if ARGV[4] == '1' then
  redis.call('SADD', KEYS[4], ARGV[3])
  redis.call('HSET', KEYS[5], ARGV[3], ARGV[5])
else
  redis.call('SREM', KEYS[4], ARGV[3])
  redis.call('HDEL', KEYS[5], ARGV[3])
end
return 1
"""


def text_of(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisKeys:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.active = f"{prefix}:rooms"
        self.lobby = f"{prefix}:lobby"
        self.processes = f"{prefix}:processes"

    def lease(self, room_id: str) -> str:
        return f"{self.prefix}:lease:{room_id}"

    def snapshot(self, room_id: str) -> str:
        return f"{self.prefix}:room:{room_id}:snap"

    def log(self, room_id: str) -> str:
        return f"{self.prefix}:room:{room_id}:log"

    def commands(self, process: str) -> str:
        return f"{self.prefix}:cmd:{process}"

    def replies(self, process: str) -> str:
        return f"{self.prefix}:reply:{process}"


class RedisSnapshots:
    def __init__(self, redis: Redis, keys: RedisKeys, process: str) -> None:
        self.redis = redis
        self.keys = keys
        self.process = process
        self._save_script = redis.register_script(_SAVE)
        self._batcher: _Batcher[RoomSave] = _Batcher(self._flush)

    async def save(self, save: RoomSave) -> bool:
        return await self._batcher.submit(save)

    async def _flush(self, saves: list[RoomSave]) -> list[bool]:
        pipe = self.redis.pipeline(transaction=False)
        for s in saves:
            k = self.keys
            await self._save_script(
                keys=[k.lease(s.room_id), k.snapshot(s.room_id), k.log(s.room_id), k.active,
                      k.lobby],
                args=[self.process, b"" if s.snapshot is None else orjson.dumps(s.snapshot),
                      s.room_id, "1" if s.active else "0",
                      b"" if s.summary is None else orjson.dumps(s.summary), s.log_base,
                      *[orjson.dumps(e) for e in s.log_entries]],
                client=pipe,
            )
        results = await pipe.execute()
        return [bool(r) for r in results]

    async def load(self, room_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        pipe = self.redis.pipeline(transaction=True)
        pipe.get(self.keys.snapshot(room_id))
        pipe.lrange(self.keys.log(room_id), 0, -1)
        raw, entries = await pipe.execute()
        if raw is None:
            return None
        return orjson.loads(raw), [orjson.loads(e) for e in entries]

    async def active_rooms(self) -> list[str]:
        return sorted(text_of(m) for m in await self.redis.smembers(self.keys.active))

    async def lobby(self) -> list[dict[str, Any]]:
        return [orjson.loads(v) for v in (await self.redis.hgetall(self.keys.lobby)).values()]

    async def summary(self, room_id: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(self.keys.lobby, room_id)
        return None if raw is None else orjson.loads(raw)

    async def close(self) -> None:
        pass


SaveRow = tuple[str, int, bytes | None, int, list[bytes], bool]


def merge_saves(saves: list[RoomSave]) -> list[SaveRow]:
    """A batch of saves as one row per room: ``(room_id, version, snapshot
    JSON or None, log_base, new entries as JSON, active)``. Several saves of
    one room in a batch: its last snapshot is enough, and the log entries of
    all of them go in."""
    rows: dict[str, SaveRow] = {}
    for s in saves:
        entries = [orjson.dumps(e) for e in s.log_entries]
        data = None if s.snapshot is None else orjson.dumps(s.snapshot)
        version = -1 if s.snapshot is None else s.snapshot["version"]
        if s.room_id in rows:
            _, earlier_version, earlier_data, base, earlier, _ = rows[s.room_id]
            entries = earlier[: s.log_base - base] + entries
            if data is None:
                data, version = earlier_data, earlier_version
        else:
            base = s.log_base
        rows[s.room_id] = (s.room_id, version, data, base, entries, s.active)
    return list(rows.values())


def rooms_file(database_file: str) -> str:
    """Where the embedded default keeps its rooms in progress, beside the database."""
    path = Path(database_file)
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return str(path.with_name(f"{stem}.rooms{path.suffix or '.db'}"))


class LocalSnapshots:
    """The embedded default: rooms in progress in a SQLite file of their own.

    Written synchronously on the event loop: a batch is a few inserts into
    the page cache, cheaper than handing it to a thread and back. The file
    is opened WAL with ``synchronous=OFF``: a commit is durable against the
    process dying (the kernel has it) but not against the machine losing
    power. If the file cannot be read at start-up it is moved aside and the
    server starts without rooms to resume.
    """

    SCHEMA = 1  # PRAGMA user_version; another version: the file is started afresh

    def __init__(self, path: str) -> None:
        self.path = path
        self._db = self._open()
        self._batcher: _Batcher[RoomSave] = _Batcher(self._flush)

    def _open(self) -> sqlite3.Connection:
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            return self._prepare(sqlite3.connect(self.path, isolation_level=None))
        except sqlite3.DatabaseError as err:
            aside = f"{self.path}.unreadable-{int(time.time())}"
            log.warning("rooms_file_unreadable", extra={"fields": {
                "path": self.path, "moved_to": aside, "error": str(err)}})
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    os.replace(self.path + suffix, aside + suffix)
            return self._prepare(sqlite3.connect(self.path, isolation_level=None))

    def _prepare(self, db: sqlite3.Connection) -> sqlite3.Connection:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=OFF")
        if db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            db.close()
            raise sqlite3.DatabaseError("quick_check failed")
        if db.execute("PRAGMA user_version").fetchone()[0] != self.SCHEMA:
            db.executescript(f"""
                DROP TABLE IF EXISTS room_snapshots;
                DROP TABLE IF EXISTS room_log;
                CREATE TABLE room_snapshots (
                    room_id TEXT PRIMARY KEY, version INTEGER NOT NULL,
                    active INTEGER NOT NULL, data BLOB NOT NULL) WITHOUT ROWID;
                CREATE TABLE room_log (
                    room_id TEXT NOT NULL, seq INTEGER NOT NULL, entry BLOB NOT NULL,
                    PRIMARY KEY (room_id, seq)) WITHOUT ROWID;
                PRAGMA user_version = {self.SCHEMA};
            """)
        return db

    async def save(self, save: RoomSave) -> bool:
        return await self._batcher.submit(save)

    async def _flush(self, saves: list[RoomSave]) -> list[bool]:
        db = self._db
        db.execute("BEGIN")
        try:
            for room_id, version, data, base, entries, active in merge_saves(saves):
                if not active:  # finished: nothing to resume any more
                    db.execute("DELETE FROM room_snapshots WHERE room_id = ?", (room_id,))
                    db.execute("DELETE FROM room_log WHERE room_id = ?", (room_id,))
                    continue
                if data is not None:
                    db.execute("INSERT OR REPLACE INTO room_snapshots VALUES (?, ?, 1, ?)",
                               (room_id, version, data))
                if entries:
                    db.executemany("INSERT OR IGNORE INTO room_log VALUES (?, ?, ?)",
                                   [(room_id, base + i, e) for i, e in enumerate(entries)])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return [True] * len(saves)

    async def load(self, room_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        row = self._db.execute("SELECT data FROM room_snapshots WHERE room_id = ?",
                               (room_id,)).fetchone()
        if row is None:
            return None
        entries = self._db.execute("SELECT entry FROM room_log WHERE room_id = ? ORDER BY seq",
                                   (room_id,)).fetchall()
        return orjson.loads(row[0]), [orjson.loads(e) for (e,) in entries]

    async def active_rooms(self) -> list[str]:
        rows = self._db.execute(
            "SELECT room_id FROM room_snapshots WHERE active = 1 ORDER BY room_id").fetchall()
        return [room_id for (room_id,) in rows]

    async def close(self) -> None:
        self._db.close()


class DbSnapshots:
    """Snapshots in the database (PostgreSQL without Redis), one transaction per batch."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._batcher: _Batcher[RoomSave] = _Batcher(self._flush)

    async def save(self, save: RoomSave) -> bool:
        return await self._batcher.submit(save)

    async def _flush(self, saves: list[RoomSave]) -> list[bool]:
        await self.store.save_room_snapshots(merge_saves(saves))
        return [True] * len(saves)

    async def load(self, room_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        loaded = await self.store.load_room_snapshot(room_id)
        if loaded is None:
            return None
        data, entries = loaded
        return orjson.loads(data), [orjson.loads(e) for e in entries]

    async def active_rooms(self) -> list[str]:
        return await self.store.active_room_snapshots()

    async def close(self) -> None:
        pass
