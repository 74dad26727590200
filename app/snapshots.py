"""Saving running rooms, so that a game survives a restart or a move.

A room is saved after every change, before the change is acknowledged:
its *snapshot* (:meth:`engine.room.RoomCore.to_snapshot`: seats, version,
timers and the game state) replaces the last one, and the new entries of its
*action log* are appended. Saves from many rooms made in the same event-loop
tick go out together (*group commit*): one pipeline to Redis, one
transaction to PostgreSQL. The journal of the embedded default writes each
save at once: an append to the page cache is cheaper than gathering.

Three stores:

- :class:`RedisSnapshots` (with ``REDIS_URL``): keys under a prefix. A save
  is *fenced*: it only lands while this process holds the room's lease (see
  :mod:`app.cluster`), so a process that lost a room cannot overwrite the
  new owner's state. The save also *carries* the change's messages: the
  script that saves publishes them on their channels, in the same step, so
  they reach the other processes without a write of their own (and never
  without the save). The store says so with ``carries_messages``.
- :class:`JournalSnapshots` (the embedded default, SQLite): an append-only
  journal file beside the database (``kartu.db`` ->
  ``kartu.rooms.journal``), copied into a shared mapping of the file's
  tail on the event loop, never fsynced. A save costs a memory copy
  instead of a trip to a database thread (or a system call), and it is
  safe from a crash or kill of the process (the copy lands in the kernel's
  page cache, the file's own pages); only a power cut can take back the
  last seconds of rooms in progress, and only of them: players, results
  and leaderboards stay in the database proper, with its own guarantees.
- :class:`DbSnapshots` (PostgreSQL without Redis): rows in
  ``room_snapshots`` and ``room_log`` through :class:`app.store.Store`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import mmap
import os
import time
from array import array
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import orjson
from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import NoScriptError, ResponseError

from app.broker import packed_command
from app.store import Store

log = logging.getLogger("kartu.snapshots")

T = TypeVar("T")


@dataclass
class RoomSave:
    """One room's save: the snapshot, the log entries from ``log_base`` on, the lobby line."""

    room_id: str
    snapshot: dict[str, Any] | None  # None: only new log entries (the game alone changed)
    log_base: int
    log_entries: list[bytes]  # JSON, as RoomCore keeps them
    summary: dict[str, Any] | None  # the lobby line; None with no snapshot
    active: bool  # waiting or playing: listed, and taken over if its process dies
    # The log from log_base on is exactly log_entries: entries stored past
    # them are dropped. Set on the first save after one that failed, which
    # may have landed all the same with changes the room has since undone.
    rewrite: bool = False
    # The change's (channel, message) pairs, for a store that carries them.
    messages: list[tuple[str, bytes]] = field(default_factory=list)


class SnapshotStore(Protocol):
    # True: a save that lands has also published its messages to every
    # process but this one (which delivers them to its own connections).
    carries_messages: bool

    async def save(self, save: RoomSave) -> bool:
        """True once saved; False if this process may no longer write the room."""
        ...

    async def load(self, room_id: str) -> tuple[dict[str, Any], list[bytes]] | None:
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
# ARGV: process, snapshot json, room id, active 1/0, summary json, log base,
#       number of entries n, rewrite 1/0, n entries, then channel and message
#       pairs.
_SAVE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2]) end
local have = redis.call('LLEN', KEYS[3])
local base = tonumber(ARGV[6])
if ARGV[8] == '1' and have > base then
  if base == 0 then redis.call('DEL', KEYS[3]) else redis.call('LTRIM', KEYS[3], 0, base - 1) end
  have = base
end
local last = 8 + tonumber(ARGV[7])
for i = 9, last do
  if base + (i - 9) >= have then redis.call('RPUSH', KEYS[3], ARGV[i]) end
end
if ARGV[5] ~= '' then
  if ARGV[4] == '1' then
    redis.call('SADD', KEYS[4], ARGV[3])
    redis.call('HSET', KEYS[5], ARGV[3], ARGV[5])
  else
    redis.call('SREM', KEYS[4], ARGV[3])
    redis.call('HDEL', KEYS[5], ARGV[3])
  end
end
for i = last + 1, #ARGV, 2 do redis.call('PUBLISH', ARGV[i], ARGV[i + 1]) end
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
    """Saves on a connection of their own, as packed commands.

    A batch of saves is one write of ``EVALSHA`` commands, packed here (not
    through redis-py's pipeline, which costs about as much again as the
    round trip itself), and its replies are read off the same connection. A
    batch that fails or takes longer than ``SAVE_TIMEOUT_S`` drops the
    connection (the next batch opens another) and fails its saves.
    """

    carries_messages = True
    SAVE_TIMEOUT_S = 5.0

    def __init__(self, redis: Redis, keys: RedisKeys, process: str) -> None:
        self.redis = redis
        self.keys = keys
        self.process = process.encode()
        self._save_sha = redis.register_script(_SAVE).sha.encode()
        self._connection: AbstractConnection | None = None
        self._batcher: _Batcher[RoomSave] = _Batcher(self._flush)

    async def save(self, save: RoomSave) -> bool:
        return await self._batcher.submit(save)

    def _save_command(self, s: RoomSave) -> bytes:
        k, room_id = self.keys, s.room_id
        return packed_command(
            b"EVALSHA", self._save_sha, b"5",
            k.lease(room_id).encode(), k.snapshot(room_id).encode(), k.log(room_id).encode(),
            k.active.encode(), k.lobby.encode(),
            self.process, b"" if s.snapshot is None else orjson.dumps(s.snapshot),
            room_id.encode(), b"1" if s.active else b"0",
            b"" if s.summary is None else orjson.dumps(s.summary),
            b"%d" % s.log_base, b"%d" % len(s.log_entries), b"1" if s.rewrite else b"0",
            *s.log_entries,
            *[part for channel, message in s.messages for part in (channel.encode(), message)],
        )

    async def _flush(self, saves: list[RoomSave]) -> list[bool]:
        # The script is loaded when Redis does not know it (a restart, a
        # flush), and the batch sent again: a save applied twice changes
        # nothing (the log is appended from its base, the rest is overwritten).
        batch = b"".join([self._save_command(s) for s in saves])
        for attempt in (1, 2):
            results = await self._round_trip(batch, len(saves))
            if attempt == 1 and any(isinstance(r, NoScriptError) for r in results):
                await self.redis.script_load(_SAVE)
                continue
            for result in results:
                if isinstance(result, Exception):
                    raise result
            break
        return [bool(r) for r in results]

    async def _round_trip(self, batch: bytes, replies: int) -> list[Any]:
        connection = self._connection
        try:
            async with asyncio.timeout(self.SAVE_TIMEOUT_S):
                if connection is None or not connection.is_connected:
                    # Taken from the pool for good: its replies are read here.
                    connection = self._connection = (
                        await self.redis.connection_pool.get_connection())
                await connection.send_packed_command(batch, check_health=False)
                results: list[Any] = []
                for _ in range(replies):
                    try:
                        results.append(await connection.read_response())
                    except ResponseError as error:  # one save's error; the rest are fine
                        results.append(error)
                return results
        except BaseException:
            # Replies may be left unread: the connection is out of step.
            self._connection = None
            if connection is not None:
                await connection.disconnect(nowait=True)
            raise

    async def load(self, room_id: str) -> tuple[dict[str, Any], list[bytes]] | None:
        pipe = self.redis.pipeline(transaction=True)
        pipe.get(self.keys.snapshot(room_id))
        pipe.lrange(self.keys.log(room_id), 0, -1)
        raw, entries = await pipe.execute()
        if raw is None:
            return None
        return orjson.loads(raw), list(entries)

    async def active_rooms(self) -> list[str]:
        return sorted(text_of(m) for m in await self.redis.smembers(self.keys.active))

    async def lobby(self) -> list[dict[str, Any]]:
        return [orjson.loads(v) for v in (await self.redis.hgetall(self.keys.lobby)).values()]

    async def summary(self, room_id: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(self.keys.lobby, room_id)
        return None if raw is None else orjson.loads(raw)

    async def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.disconnect()


SaveRow = tuple[str, int, bytes | None, int, list[bytes], bool]


def merge_saves(saves: list[RoomSave]) -> list[SaveRow]:
    """A batch of saves as one row per room: ``(room_id, version, snapshot
    JSON or None, log_base, new entries as JSON, active)``. Several saves of
    one room in a batch: its last snapshot is enough, and the log entries of
    all of them go in."""
    if len(saves) == 1:  # the journal's every save: nothing to merge
        return [_row(saves[0])]
    rows: dict[str, SaveRow] = {}
    for s in saves:
        row = _row(s)
        earlier_row = rows.get(s.room_id)
        if earlier_row is not None:
            _, version, data, base, entries, active = row
            _, earlier_version, earlier_data, base, earlier, _ = earlier_row
            entries = earlier[: s.log_base - base] + entries
            if data is None:
                data, version = earlier_data, earlier_version
            row = (s.room_id, version, data, base, entries, active)
        rows[s.room_id] = row
    return list(rows.values())


def _row(save: RoomSave) -> SaveRow:
    data = None if save.snapshot is None else orjson.dumps(save.snapshot)
    version = -1 if save.snapshot is None else save.snapshot["version"]
    return (save.room_id, version, data, save.log_base, save.log_entries, save.active)


def rooms_file(database_file: str) -> str:
    """Where the embedded default journals its rooms in progress, beside the database."""
    path = Path(database_file)
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return str(path.with_name(f"{stem}.rooms.journal"))


_LENGTH_BITS = 24  # a line's place in the file: offset << _LENGTH_BITS | length


def _place(offset: int, length: int) -> int:
    return offset << _LENGTH_BITS | length


def _unplace(place: int) -> tuple[int, int]:
    return place >> _LENGTH_BITS, place & ((1 << _LENGTH_BITS) - 1)


@dataclass
class _JournaledRoom:
    # Where the latest snapshot's JSON and each line of the action log
    # ("E <room> <seq> <entry JSON>\n", in order: see _place) lie in the
    # file. They are read back only to resume or compact, so they are not
    # kept in memory: the room keeps its log itself (RoomCore.action_log),
    # and a second copy here would double a long game's memory.
    snapshot_at: tuple[int, int] | None = None
    entries: array[int] = field(default_factory=lambda: array("Q"))
    entry_bytes: int = 0  # what the log's lines weigh


class JournalSnapshots:
    """The embedded default: rooms in progress in an append-only journal file.

    One line per record:

    - ``S <room> <version> <snapshot JSON>``: the room's latest snapshot;
    - ``E <room> <seq> <entry JSON>``: entry ``seq`` of its action log;
    - ``X <room>``: the room is over, forget it.

    A save's lines are copied into the *window*: a shared mapping of the
    file from where the journal ends, its blocks allocated beforehand
    (a full disk is an error when the window moves on, never a crash at
    the copy). The copy is the file's page in the kernel's page cache, as
    a ``write`` would leave it, at the cost of a ``memcpy`` instead of a
    system call on every save; nothing is fsynced. Only the window is
    mapped, so the process's memory does not grow with the file.

    The file runs past the journal's end by the window's unwritten zeros
    (a closed journal is cut to its end); loading stops at the zeros.
    What a killed process wrote is in the kernel and survives it; a power
    cut can take back the last seconds, or tear the last line, which
    loading cuts off. The journal holds rooms in progress only; it keeps in
    memory where their latest snapshot and each line of their action logs
    lie in the file (the lines themselves are read back only to resume or
    compact). When the file has grown to several times what is
    live, it is rewritten with the live records only (*compaction*) and
    swapped in with an atomic rename.
    """

    COMPACT_MIN_BYTES = 64 * 1024 * 1024
    COMPACT_FACTOR = 4  # rewrite once the file is this many times what is live
    WINDOW_BYTES = 1024 * 1024  # mapped at a time: a new window every megabyte written

    carries_messages = False

    def __init__(self, path: str) -> None:
        self.path = path
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.rooms: dict[str, _JournaledRoom] = {}
        self._size = self._load()  # where the journal ends: the next line goes there
        self._live = sum(map(self._weight, self.rooms.values()))  # kept up to date
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        self._window: mmap.mmap | None = None
        self._window_at = self._window_end = 0  # the file's bytes the window maps

    def _load(self) -> int:
        try:
            data = Path(self.path).read_bytes()
        except FileNotFoundError:
            return 0
        on_disk = len(data)
        data = data.rstrip(b"\0")  # a window's unwritten end (a line never holds a NUL)
        if data and not data.endswith(b"\n"):
            # A write torn by a power cut or a kill mid-copy: cut it off, or
            # the next line would be appended to it.
            data = data[: data.rfind(b"\n") + 1]
            log.warning("journal_tail_cut", extra={"fields": {"path": self.path}})
        if len(data) != on_disk:
            os.truncate(self.path, len(data))
        skipped = 0
        at = 0
        for line in data.split(b"\n"):
            start, at = at, at + len(line) + 1
            if not line:
                continue
            try:
                self._replay(line, start)
            except (ValueError, IndexError):
                skipped += 1  # a damaged line: its room resumes without it
        if skipped:
            log.warning("journal_lines_skipped", extra={"fields": {"path": self.path,
                                                                   "lines": skipped}})
        return len(data)

    def _replay(self, line: bytes, start: int) -> None:
        kind, parts = line[:1], line[2:].split(b" ", 2)
        room = parts[0].decode()
        if kind == b"X":
            self.rooms.pop(room, None)
            return
        number, payload = parts[1], parts[2]
        orjson.loads(payload)  # a damaged line does not parse
        record = self.rooms.setdefault(room, _JournaledRoom())
        if kind == b"S":
            record.snapshot_at = (start + len(line) - len(payload), len(payload))
        elif kind == b"E":
            seq = int(number)
            if seq == len(record.entries):
                record.entries.append(_place(start, len(line) + 1))
                record.entry_bytes += len(line) + 1
            elif seq > len(record.entries):
                raise ValueError(f"log entry {seq} of room {room} comes after a gap")
        else:
            raise ValueError(f"unknown record {kind!r}")

    async def save(self, save: RoomSave) -> bool:
        # Written at once: one small copy costs less than the task switches
        # of gathering a batch, and the caller resumes without suspending.
        self.write([save])
        return True

    def write(self, saves: list[RoomSave]) -> None:
        """Journals ``saves``, or raises with the journal as it was (a full
        disk when the window moves on): a failed save never leaves the index
        saying that lines are in the file which are not."""
        before = {s.room_id: self._record_state(s.room_id) for s in saves}
        live = self._live
        try:
            self._write(saves)
        except BaseException:
            self._live = live
            for room_id, state in before.items():
                if state is None:
                    self.rooms.pop(room_id, None)
                    continue
                record, length, entry_bytes, snapshot_at = state
                del record.entries[length:]
                record.entry_bytes, record.snapshot_at = entry_bytes, snapshot_at
                self.rooms[room_id] = record
            raise

    def _record_state(self, room_id: str
                      ) -> tuple[_JournaledRoom, int, int, tuple[int, int] | None] | None:
        record = self.rooms.get(room_id)
        if record is None:
            return None
        return record, len(record.entries), record.entry_bytes, record.snapshot_at

    def _write(self, saves: list[RoomSave]) -> None:
        lines: list[bytes] = []
        at = self._size  # where the next line starts in the file
        for room_id, version, data, base, entries, active in merge_saves(saves):
            if not active:  # over: nothing to resume any more
                gone = self.rooms.pop(room_id, None)
                if gone is not None:
                    self._live -= self._weight(gone)
                    lines.append(b"X %s\n" % room_id.encode())
                    at += len(lines[-1])
                continue
            record = self.rooms.get(room_id)
            if record is None:  # (not setdefault: that would make one on every save)
                record = self.rooms[room_id] = _JournaledRoom()
            key = room_id.encode()
            if data is not None:
                # Only the snapshot's share of the room's weight changes: not
                # _weight, which sums every line of the room's log so far.
                self._live -= self._snapshot_weight(record)
                line = b"S %s %d %s\n" % (key, version, data)
                record.snapshot_at = (at + len(line) - 1 - len(data), len(data))
                self._live += self._snapshot_weight(record)
                lines.append(line)
                at += len(line)
            for seq, entry in enumerate(entries, start=base):
                if seq == len(record.entries):  # earlier positions are already saved
                    line = b"E %s %d %s\n" % (key, seq, entry)
                    record.entries.append(_place(at, len(line)))
                    record.entry_bytes += len(line)
                    self._live += len(line)
                    lines.append(line)
                    at += len(line)
        if lines:
            chunk = lines[0] if len(lines) == 1 else b"".join(lines)
            start, end = self._size, self._size + len(chunk)
            if end > self._window_end:
                self._move_window(start, len(chunk))
            assert self._window is not None
            self._window[start - self._window_at:end - self._window_at] = chunk
            self._size = end
            if self._size > self.COMPACT_MIN_BYTES and \
                    self._size > self.COMPACT_FACTOR * self._live:
                self.compact()

    def _move_window(self, at: int, need: int) -> None:
        """Maps the file from ``at`` on, for at least ``need`` bytes, its blocks allocated."""
        self._close_window()
        start = at - at % mmap.ALLOCATIONGRANULARITY  # a mapping starts on a page
        length = max(self.WINDOW_BYTES, at - start + need)
        # The blocks first, so that the copy never lands on a hole the disk
        # has no room for: that would be a SIGBUS at the copy, not an error here.
        _allocate(self._fd, start, length)
        self._window = mmap.mmap(self._fd, length, offset=start)
        self._window_at, self._window_end = start, start + length

    def _close_window(self) -> None:
        if self._window is not None:
            self._window.close()
        self._window = None
        self._window_at = self._window_end = 0

    @classmethod
    def _weight(cls, record: _JournaledRoom) -> int:
        """About what a room's lines weigh in a compacted journal."""
        return cls._snapshot_weight(record) + record.entry_bytes

    @staticmethod
    def _snapshot_weight(record: _JournaledRoom) -> int:
        """What its latest snapshot's line weighs (32: the line's head)."""
        return record.snapshot_at[1] + 32 if record.snapshot_at is not None else 0

    def compact(self) -> None:
        """Rewrites the journal with the live rooms only, then swaps it in."""
        started = time.perf_counter()
        temporary = f"{self.path}.compacting"
        moved: dict[str, tuple[tuple[int, int] | None, array[int]]] = {}
        with open(temporary, "wb") as out, self._reading() as old:
            for room_id, record in self.rooms.items():
                snapshot_at = None
                if record.snapshot_at is not None:
                    offset, length = record.snapshot_at
                    head = b"S %s 0 " % room_id.encode()
                    snapshot_at = (out.tell() + len(head), length)
                    out.write(head + old[offset:offset + length] + b"\n")
                entries = array("Q")
                for place in record.entries:
                    offset, length = _unplace(place)
                    entries.append(_place(out.tell(), length))
                    out.write(old[offset:offset + length])
                moved[room_id] = (snapshot_at, entries)
            size = out.tell()
        # The window maps the old file: let it go before the new one is in place.
        self._close_window()
        os.replace(temporary, self.path)
        os.close(self._fd)
        self._fd = os.open(self.path, os.O_RDWR)
        for room_id, (snapshot_at, entries) in moved.items():  # same lengths: same weight
            self.rooms[room_id].snapshot_at = snapshot_at
            self.rooms[room_id].entries = entries
        log.info("journal_compacted", extra={"fields": {
            "from_bytes": self._size, "to_bytes": size, "rooms": len(self.rooms),
            "ms": round((time.perf_counter() - started) * 1000, 1)}})
        self._size = size

    async def load(self, room_id: str) -> tuple[dict[str, Any], list[bytes]] | None:
        record = self.rooms.get(room_id)
        if record is None or record.snapshot_at is None:
            return None
        with self._reading() as journal:
            offset, length = record.snapshot_at
            snapshot = journal[offset:offset + length]
            lines = [journal[offset:offset + length]
                     for offset, length in map(_unplace, record.entries)]
        return orjson.loads(snapshot), [line.split(b" ", 3)[3].rstrip(b"\n") for line in lines]

    def _reading(self) -> contextlib.AbstractContextManager[bytes] | mmap.mmap:
        """The journal as written so far, to read lines from: a mapping of the
        file (a long game's thousands of lines without a system call each)."""
        if not self._size:  # a mapping cannot be empty
            return contextlib.nullcontext(b"")
        return mmap.mmap(self._fd, self._size, access=mmap.ACCESS_READ)

    async def active_rooms(self) -> list[str]:
        return sorted(r for r, record in self.rooms.items() if record.snapshot_at is not None)

    async def close(self) -> None:
        if self._fd >= 0:
            self._close_window()
            os.ftruncate(self._fd, self._size)  # without the window's unwritten end
            os.close(self._fd)
            self._fd = -1


def _allocate(fd: int, offset: int, length: int) -> None:
    """Gives the file its blocks from ``offset`` for ``length`` bytes (and that size)."""
    if hasattr(os, "posix_fallocate"):
        os.posix_fallocate(fd, offset, length)
    elif os.fstat(fd).st_size < offset + length:  # (macOS) a sparse end, at least
        os.ftruncate(fd, offset + length)


class DbSnapshots:
    """Snapshots in the database (PostgreSQL without Redis), one transaction per batch."""

    carries_messages = False

    def __init__(self, store: Store) -> None:
        self.store = store
        self._batcher: _Batcher[RoomSave] = _Batcher(self._flush)

    async def save(self, save: RoomSave) -> bool:
        return await self._batcher.submit(save)

    async def _flush(self, saves: list[RoomSave]) -> list[bool]:
        rewrites = [(s.room_id, s.log_base) for s in saves if s.rewrite]
        await self.store.save_room_snapshots(merge_saves(saves), rewrites)
        return [True] * len(saves)

    async def load(self, room_id: str) -> tuple[dict[str, Any], list[bytes]] | None:
        loaded = await self.store.load_room_snapshot(room_id)
        if loaded is None:
            return None
        data, entries = loaded
        return orjson.loads(data), entries

    async def active_rooms(self) -> list[str]:
        return await self.store.active_room_snapshots()

    async def close(self) -> None:
        pass
