"""A store that cannot be reached: nothing is acked or sent unsaved, the save
after a failed one rewrites what that one may have left, a room that cannot be
read back is reported, and the journal's index never runs ahead of its file.

These run the registry in the test's own event loop on the real parts (a
SQLite store and the journal), with the snapshot store's save made to fail.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from redis.asyncio import Redis

from app.broker import MemoryBroker
from app.health import StoreHealth, is_outage
from app.rooms import RoomRegistry
from app.settings import Settings
from app.snapshots import (
    DbSnapshots,
    JournalSnapshots,
    RedisKeys,
    RedisSnapshots,
    RoomSave,
    rooms_file,
)
from app.store import FinishedGame, RoomRecord, Store
from engine.room import AddBot, Chat, Join, RoomError, Snapshot, Start
from tests.app.test_ws_integration import redis_url_or_skip
from tests.games import known_game
from tests.services import running_store
from tests.waiting import wait_for

GAME = known_game("basic_rummy")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    async with running_store(f"sqlite:///{tmp_path / 'kartu.db'}") as s:
        yield s


class FailingJournal(JournalSnapshots):
    """The journal, with saves that raise while ``down`` (and count the rewrites)."""

    down = False
    rewrites: list[tuple[str, int]]

    async def save(self, save: RoomSave) -> bool:
        if self.down:
            raise ConnectionRefusedError(111, "Connection refused")
        if save.rewrite:
            self.rewrites.append((save.room_id, save.log_base))
        return await super().save(save)


class Records(logging.Handler):
    """What kartu's loggers write, caught on the "kartu" logger itself: once
    the server's logging is set up it does not propagate to the root, where
    pytest's caplog listens."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def kartu_log() -> Iterator[Records]:
    logger = logging.getLogger("kartu")
    handler, level = Records(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


async def test_a_failed_save_is_refused_unsent_and_rewritten_by_the_next(
        store: Store, tmp_path: Path, kartu_log: Records) -> None:
    broker = MemoryBroker()
    await broker.start()
    journal = FailingJournal(rooms_file(str(tmp_path / "kartu.db")))
    journal.rewrites = []
    health = StoreHealth()
    registry = RoomRegistry(Settings(), broker, store, journal, health=health)
    await registry.start()
    sent: list[int] = []
    original_send = registry.feeds.send
    registry.feeds.send = lambda version, frames: (sent.append(version),  # type: ignore
                                                   original_send(version, frames))
    try:
        ana = (await store.create_player("Ana")).id
        room = (await registry.create(GAME, 3, {"bot_delay_ms": 10_000}, ana)).core.room_id
        await registry.call(room, Join(ana, "Ana", "player"))
        version = registry.rooms[room].core.version
        journal.down = True
        for _ in range(5):
            with pytest.raises(RoomError) as refused:
                await registry.call(room, AddBot(ana))
            assert refused.value.code == "unavailable"
        # A chat line is saved before it is sent, like a change: refused, not kept.
        with pytest.raises(RoomError) as refused:
            await registry.call(room, Chat(ana, 0, "Ana", "hello"))
        assert refused.value.code == "unavailable"
        core = registry.rooms[room].core
        assert [s.bot for s in core.seats] == [False, False, False]
        assert core.chat == [] and core.chat_serial == 0 and core.take_chat() == []
        assert max(sent) == version  # nothing sent for what was not saved
        assert health.summary()["journal"]["up"] is False
        downs = [r for r in kartu_log.records if r.getMessage() == "store_down"]
        assert len(downs) == 1 and not any(r.exc_info for r in kartu_log.records)
        journal.down = False
        assert await registry.call(room, AddBot(ana)) == 1
        assert health.summary()["journal"]["up"] is True
        assert journal.rewrites == [(room, len(core.action_log))]
        # Ahead of anything the failed saves may have sent.
        assert core.version > version + 1
        await registry.call(room, AddBot(ana))
        await registry.call(room, Start(ana))
        _, view = await registry.call(room, Snapshot(0))
        assert view["phase"] == "playing"
    finally:
        await registry.close()
        await broker.close()


async def test_a_room_that_cannot_be_read_back_is_reported(
        store: Store, tmp_path: Path, kartu_log: Records) -> None:
    path = rooms_file(str(tmp_path / "kartu.db"))
    journal = JournalSnapshots(path)
    await store.save_room(RoomRecord(id="broken", game="basic_rummy", options={}, seats=2,
                                     owner_id=None, status="playing", seed=1))
    unknown_format = {"format": 999, "game": "basic_rummy", "version": 1}
    journal.write([RoomSave(room_id="broken", snapshot=unknown_format, log_base=0,
                            log_entries=[], summary=None, active=True)])
    await journal.close()
    broker = MemoryBroker()
    await broker.start()
    registry = RoomRegistry(Settings(), broker, store, JournalSnapshots(path))
    await registry.start()
    try:
        assert list(registry.unrecoverable) == ["broken"]
        assert any("broken" in r.getMessage() and r.levelno == logging.ERROR
                   for r in kartu_log.records)
    finally:
        await registry.close()
        await broker.close()


class FlakyStore(Store):
    """The store, with games' records that cannot be written while ``down``."""

    down = False
    tries = 0

    async def save_finished_game(self, finished: FinishedGame) -> int:
        self.tries += 1
        if self.down:
            raise ConnectionRefusedError(111, "Connection refused")
        return await super().save_finished_game(finished)


@contextlib.asynccontextmanager
async def bots_playing(tmp_path: Path, retry_s: tuple[float, float]
                       ) -> AsyncIterator[tuple[FlakyStore, RoomRegistry, str]]:
    """A room of two bots, dealt while the store cannot write games' records
    (they play it to the end at once), run by a registry that tries a failed
    write again after ``retry_s`` (first, longest); closed after."""
    store = FlakyStore(f"sqlite:///{tmp_path / 'kartu.db'}")
    await store.start()
    broker = MemoryBroker()
    await broker.start()
    registry = RoomRegistry(Settings(), broker, store,
                            JournalSnapshots(rooms_file(str(tmp_path / "kartu.db"))))
    registry.STORE_RETRY_S = retry_s
    # No probe in the test's time: only the writes say whether the database is up.
    registry.health.WATCH_EVERY_S = 3600
    await registry.start()
    try:
        owner = (await store.create_player("Ana")).id
        room = (await registry.create(GAME, 2, {"bot_delay_ms": 0, "turn_clock_s": 0, "deals": 1},
                                      owner)).core.room_id
        for _ in range(2):
            await registry.call(room, AddBot(owner))
        store.down = True
        await registry.call(room, Start(owner))
        yield store, registry, room
    finally:
        await registry.close()
        await broker.close()
        await store.close()


async def test_a_game_that_ends_in_an_outage_is_recorded_once_the_store_is_back(
        tmp_path: Path, kartu_log: Records) -> None:
    async with bots_playing(tmp_path, (0.05, 0.2)) as (store, registry, room):
        await wait_for(lambda: store.tries >= 3, timeout=30,
                       what="the game's end, and its record tried again")
        assert registry.rooms[room].core.status == "finished"
        assert await store.replay(room) is None
        assert registry.health.summary()["database"]["up"] is False
        store.down = False
        record = await wait_for(lambda: store.replay(room), what="the game's record")
        assert record["actions"] == registry.rooms[room].core.replay_record()["actions"]
        # The record can be read a moment before the write that made it returns.
        await wait_for(lambda: registry.health.summary()["database"]["up"],
                       what="the write that landed saying the database is back")
    # Said once, as an outage, not once a try; and nothing was given up.
    messages = [r.getMessage() for r in kartu_log.records]
    assert messages.count("store_down") == 1 and messages.count("store_up") == 1
    assert "store_write_lost" not in messages


async def test_a_record_the_store_still_refuses_at_shutdown_is_logged_lost(
        tmp_path: Path, kartu_log: Records) -> None:
    started = asyncio.get_running_loop().time()
    async with bots_playing(tmp_path, (60.0, 60.0)) as (store, _, room):
        await wait_for(lambda: store.tries >= 1, timeout=30, what="the game's end")
    # Closing woke the write waiting out the outage, for one last try.
    assert asyncio.get_running_loop().time() - started < 30
    assert store.tries == 2
    lost = [r for r in kartu_log.records if r.getMessage() == "store_write_lost"]
    assert len(lost) == 1 and lost[0].levelno == logging.ERROR
    assert room in lost[0].fields["what"]  # type: ignore[attr-defined]


def test_a_journal_write_that_fails_leaves_the_index_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = JournalSnapshots(str(tmp_path / "rooms.journal"))
    first = RoomSave(room_id="r", snapshot={"format": 1, "version": 0}, log_base=0,
                     log_entries=[b'{"a":0}'], summary=None, active=True)
    journal.write([first])
    journal.WINDOW_BYTES = 4096

    def full(at: int, need: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal, "_move_window", full)
    big = RoomSave(room_id="r", snapshot={"format": 1, "version": 1, "pad": "x" * 2_000_000},
                   log_base=1, log_entries=[b'{"a":1}'], summary=None, active=True)
    with pytest.raises(OSError):
        journal.write([big])
    assert len(journal.rooms["r"].entries) == 1
    monkeypatch.undo()
    journal.write([RoomSave(room_id="r", snapshot=None, log_base=1,
                            log_entries=[b'{"a":2}'], summary=None, active=True)])
    snapshot, entries = asyncio.run(journal.load("r")) or ({}, [])
    assert snapshot == {"format": 1, "version": 0} and entries == [b'{"a":0}', b'{"a":2}']


async def test_a_rewrite_replaces_the_log_from_its_base_in_the_database(store: Store) -> None:
    await store.save_room(RoomRecord(id="r", game="basic_rummy", options={}, seats=2,
                                     owner_id=None, status="playing", seed=1))
    db = DbSnapshots(store)
    snap = {"format": 1, "version": 3}
    await db.save(RoomSave("r", snap, 0, [b'"a"', b'"b"', b'"c"'], None, True))
    await db.save(RoomSave("r", snap, 1, [b'"B"'], None, True, rewrite=True))
    loaded = await db.load("r")
    assert loaded is not None and loaded[1] == [b'"a"', b'"B"']


async def test_a_rewrite_replaces_the_log_from_its_base_in_redis() -> None:
    redis = Redis.from_url(redis_url_or_skip())
    keys = RedisKeys(f"t{secrets.token_hex(4)}")
    snapshots = RedisSnapshots(redis, keys, "p1")
    try:
        await redis.set(keys.lease("r"), "p1")
        snap: dict[str, Any] = {"format": 1, "version": 3}
        assert await snapshots.save(RoomSave("r", snap, 0, [b'"a"', b'"b"', b'"c"'], None,
                                             True))
        assert await snapshots.save(RoomSave("r", snap, 1, [b'"B"'], None, True,
                                             rewrite=True))
        assert await snapshots.save(RoomSave("r", None, 2, [b'"C"'], None, True))
        loaded = await snapshots.load("r")
        assert loaded is not None and loaded[1] == [b'"a"', b'"B"', b'"C"']
        assert orjson.loads(orjson.dumps(loaded[0])) == snap
    finally:
        await snapshots.close()
        for key in await redis.keys(f"{keys.prefix}:*"):
            await redis.delete(key)
        await redis.aclose()


def test_outages_are_told_from_other_errors() -> None:
    from sqlalchemy.exc import IntegrityError, OperationalError
    assert is_outage(ConnectionRefusedError(111, "refused"))
    assert is_outage(OperationalError("SELECT 1", {}, Exception("gone")))
    assert not is_outage(IntegrityError("INSERT", {}, Exception("duplicate")))
    assert is_outage(OSError(28, "No space left on device"))
    assert not is_outage(FileNotFoundError(2, "No such file"))
    assert not is_outage(ValueError("bug"))
