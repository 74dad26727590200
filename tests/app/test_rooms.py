"""The room registry's eviction: rooms nobody is in leave memory, and a room
that moved to another process meanwhile is let go without a fuss; and which
commands carry an id.

These run the registry in the test's own event loop on the real parts: a
SQLite store and the journal, or a Cluster on a real Redis.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from app.broker import MemoryBroker, RedisBroker
from app.cluster import Cluster
from app.gateway import Connection
from app.rooms import RoomRegistry, now_ms
from app.settings import Settings
from app.snapshots import JournalSnapshots, rooms_file
from app.store import Store
from engine.room import Act, AddBot, Join, RoomError, Start
from tests.app.test_ws_integration import redis_url_or_skip
from tests.games import known_game
from tests.services import running_store
from tests.waiting import wait_for

GAME = known_game("basic_rummy")
IDLE_S = 60


def later() -> int:
    """A moment when every room made so far has been idle long enough to go."""
    return now_ms() + 2 * IDLE_S * 1000


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    async with running_store(f"sqlite:///{tmp_path / 'kartu.db'}") as s:
        yield s


async def test_an_idle_waiting_room_is_abandoned_and_leaves_memory(
        store: Store, tmp_path: Path) -> None:
    broker = MemoryBroker()
    await broker.start()
    snapshots = JournalSnapshots(rooms_file(str(tmp_path / "kartu.db")))
    registry = RoomRegistry(Settings(room_idle_s=IDLE_S), broker, store, snapshots)
    await registry.start()
    try:
        idle = (await registry.create(GAME, 2, {}, None)).core.room_id
        await registry.sweep(now_ms())  # not idle long enough yet
        assert registry.get(idle) is not None
        await registry.sweep(later())
        assert registry.get(idle) is None and idle not in registry.rooms
        assert await snapshots.active_rooms() == []  # nothing to resume on restart
    finally:
        await registry.close()  # waits for the registry's writes in the background
        await broker.close()
    record = await store.room(idle)
    assert record is not None and record.status == "abandoned"


@contextlib.asynccontextmanager
async def clustered(store: Store, settings: Settings
                    ) -> AsyncIterator[tuple[RoomRegistry, Cluster]]:
    """The registry of one process of a cluster on a real Redis, its keys under
    a prefix of its own, deleted afterwards."""
    url = redis_url_or_skip()
    broker = RedisBroker(url)
    await broker.start()
    cluster = Cluster(url, f"t{secrets.token_hex(4)}", broker)
    registry = RoomRegistry(settings, broker, store, cluster.snapshots, cluster)
    await registry.start()
    try:
        yield registry, cluster
    finally:
        await registry.close()
        await broker.close()
        keys = [key async for key in cluster.redis.scan_iter(match=cluster.keys.prefix + "*")]
        if keys:
            await cluster.redis.delete(*keys)


async def test_a_sweep_lets_go_of_a_room_that_moved_to_another_process(
        store: Store) -> None:
    async with clustered(store, Settings(room_idle_s=IDLE_S)) as (registry, cluster):
        moved = (await registry.create(GAME, 2, {}, None)).core.room_id
        stays = (await registry.create(GAME, 2, {}, None)).core.room_id
        # Another process holds the room now (as after a pause longer than the lease).
        await cluster.redis.set(cluster.keys.lease(moved), "elsewhere")
        await registry.sweep(later())
        assert moved not in registry.rooms and stays not in registry.rooms
        # The other process keeps its lease, and the room's save is its own.
        assert await cluster.owner(moved) == "elsewhere"
        assert await cluster.owner(stays) is None
        await registry.sweep(later())  # and the next sweep has nothing left to do


class _QueueSocket:
    """A socket with no direct frame path: the gateway queues what it sends."""


async def _play_two_moves(registry: RoomRegistry, store: Store) -> list[dict[str, Any]]:
    """Two guests join a Basic Rummy room through the gateway and the first
    player draws and discards; the room's action log as it was saved."""
    players = [await store.create_player(name) for name in ("Ana", "Bo")]
    room_id = (await registry.create(GAME, 2, {"turn_clock_s": 0}, players[0].id)).core.room_id
    ana, bo = (Connection(_QueueSocket(), p, registry.settings, registry,  # type: ignore[arg-type]
                          registry.feeds) for p in players)
    for conn in (ana, bo):
        await conn._dispatch(json.dumps({"type": "join", "room": room_id}))
    await ana._dispatch(json.dumps({"type": "start", "room": room_id}))
    core = registry.rooms[room_id].core
    for kind in ("draw", "discard"):
        seat = GAME.to_act(core.state)[0]
        conn = (ana, bo)[seat]
        view = core.view_for(seat, now_ms())
        action = ({"kind": "draw", "from": "stock"} if kind == "draw"
                  else {"kind": "discard", "card": view["hand"][-1]})
        await conn._dispatch(json.dumps({"type": "act", "room": room_id, "action": action}))
    assert len(core.action_log) == 2, "both moves were played"
    loaded = await registry.snapshots.load(room_id)
    assert loaded is not None
    return [orjson.loads(entry) for entry in loaded[1]]


async def test_one_process_writes_no_command_ids_a_cluster_does(
        store: Store, tmp_path: Path) -> None:
    # A command id only matters when a command can reach its room twice: sent
    # again after the room moved to another process. With one process it
    # would be kept in every log entry and remembered by the room for nothing.
    broker = MemoryBroker()
    snapshots = JournalSnapshots(rooms_file(str(tmp_path / "kartu.db")))
    registry = RoomRegistry(Settings(), broker, store, snapshots)
    await registry.start()
    try:
        entries = await _play_two_moves(registry, store)
        assert len(entries) == 2 and not any("cid" in entry for entry in entries)
        assert registry.replies is None
    finally:
        await registry.close()

    async with clustered(store, Settings()) as (registry, _):
        entries = await _play_two_moves(registry, store)
        assert len(entries) == 2 and all("cid" in entry for entry in entries)
        # The room itself knows nothing of them.
        assert not any("cid" in entry for actor in registry.rooms.values()
                       for entry in actor.core.log_entries())
        # It keeps its log as the JSON that is saved (app.rooms.JSON_LOG).
        assert all(isinstance(entry, bytes) for actor in registry.rooms.values()
                   for entry in actor.core.action_log)


async def test_a_retried_command_is_answered_again_not_applied_twice_even_after_a_move(
        store: Store) -> None:
    async with clustered(store, Settings()) as (registry, cluster):
        ana, bo = await store.create_player("Ana"), await store.create_player("Bo")
        actor = await registry.create(GAME, 3, {"turn_clock_s": 0}, ana.id)
        room_id = actor.core.room_id
        await registry.answer(room_id, Join(ana.id, "Ana", "player"), "c1")
        await registry.answer(room_id, Join(bo.id, "Bo", "player"), "c2")
        assert await registry.answer(room_id, AddBot(ana.id), "c3") == 2
        assert await registry.answer(room_id, AddBot(ana.id), "c3") == 2  # a retry
        assert actor.core.seats_taken == 3
        await registry.answer(room_id, Start(ana.id), "c4")
        core = actor.core
        seat = GAME.to_act(core.state)[0]
        if seat == 2:  # the bot's turn first: wait for it to draw and discard
            await wait_for(lambda: GAME.to_act(core.state)[0] != 2, what="the bot's turn")
            seat = GAME.to_act(core.state)[0]
        player = (ana, bo)[seat]
        draw = Act(player.id, seat, {"kind": "draw", "from": "stock"})
        await registry.answer(room_id, draw, "c5")
        hand = len(core.state.hands[seat])
        # The room moves: this process lets it go and takes it over again
        # from what it saved, as another process would.
        await registry.drop_local(room_id)
        await cluster.release(room_id)
        assert await registry.take_over(room_id)
        moved = registry.rooms[room_id].core
        before = moved.version
        # Sent again after the move, the draw and the bot are recognised.
        await registry.answer(room_id, draw, "c5")
        assert await registry.answer(room_id, AddBot(ana.id), "c3") == 2
        assert moved.version == before and len(moved.state.hands[seat]) == hand
        # A new command is applied as usual.
        refused = Act(player.id, seat, {"kind": "draw", "from": "stock"})
        with pytest.raises(RoomError):
            await registry.answer(room_id, refused, "c6")


async def test_a_room_taken_over_counts_the_dead_process_connections_gone(
        store: Store) -> None:
    # The room only counts connections; which are whose is the registry's,
    # saved beside the room, so that whoever takes the room over can tell.
    async with clustered(store, Settings()) as (registry, cluster):
        ana, bo = await store.create_player("Ana"), await store.create_player("Bo")
        actor = await registry.create(GAME, 2, {"turn_clock_s": 0}, ana.id)
        room_id = actor.core.room_id
        alive = f"{registry.process_id}:1"
        await registry.answer(room_id, Join(ana.id, "Ana", "player"), "c1", "gone:1")
        await registry.answer(room_id, Join(bo.id, "Bo", "player"), "c2", alive)
        await registry.answer(room_id, Join(None, None, "spectator"), "c3", "gone:2")
        await registry.answer(room_id, Join(None, None, "spectator"), "c4", alive)
        core = actor.core
        assert [s.connections for s in core.seats] == [1, 1] and core.spectators == 2
        assert "gone:1" not in json.dumps(core.to_snapshot())

        await registry.drop_local(room_id)
        await cluster.release(room_id)
        assert await registry.take_over(room_id)
        moved = registry.rooms[room_id].core
        assert [s.connections for s in moved.seats] == [0, 1] and moved.spectators == 1
        assert registry.members.saved(room_id) == [[alive, None], [alive, 1]]
