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
- :class:`DbSnapshots` (the embedded default): rows in ``room_snapshots`` and
  ``room_log`` through :class:`app.store.Store`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
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


class DbSnapshots:
    """The embedded default: snapshots in the database, one transaction per batch."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._batcher: _Batcher[RoomSave] = _Batcher(self._flush)

    async def save(self, save: RoomSave) -> bool:
        return await self._batcher.submit(save)

    async def _flush(self, saves: list[RoomSave]) -> list[bool]:
        # Several saves of one room in a batch: its last snapshot is enough,
        # and the log entries of all of them go in.
        rows: dict[str, tuple[str, int, bytes | None, int, list[bytes], bool]] = {}
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
        await self.store.save_room_snapshots(list(rows.values()))
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
