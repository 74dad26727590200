"""All or nothing: a command or timer whose work or save fails leaves the room as it was."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from engine.room import (
    Act,
    AddBot,
    Change,
    Join,
    RoomActor,
    RoomCore,
    RoomError,
    Start,
    Unavailable,
)
from tests.engine import room_harness
from tests.games import known_game

GAME = known_game("basic_rummy")


def clock() -> int:
    return time.time_ns() // 1_000_000


class Store:
    """A commit that fails while ``down``, and counts what it saved and sent."""

    def __init__(self) -> None:
        self.down = False
        self.saved: list[int] = []
        self.sent: list[Change] = []

    async def commit(self, core: RoomCore, changes: list[Change], tag: object) -> bool:
        if self.down:
            raise Unavailable("connection refused")
        self.saved.append(core.version)
        self.sent.extend(changes)
        return True


def facts(room: RoomCore) -> tuple[Any, ...]:
    return (room.state, room.version, room.room_changes, room.status, len(room.action_log),
            [(s.player_id, s.bot, s.connections, s.away) for s in room.seats],
            room.spectators, list(room.outbox))


async def playing_room(store: Store, **options: Any) -> tuple[RoomActor, RoomCore]:
    room, _ = room_harness.make_room(GAME, 2, room_id="rb", seed=7, bot_delay_ms=1,
                                     turn_clock_s=0, deals=1, **options)
    actor = RoomActor(room, clock, store.commit)
    actor.start()
    await actor.call(Join("ana", "Ana", "player"))
    await actor.call(AddBot("ana"))
    await actor.call(Start("ana"))
    return actor, room


async def test_a_command_whose_save_fails_is_refused_and_undone() -> None:
    store = Store()
    room, _ = room_harness.make_room(GAME, 3, room_id="r1", seed=3)
    actor = RoomActor(room, clock, store.commit)
    actor.start()
    await actor.call(Join("ana", "Ana", "player"))
    before = facts(room)
    sent = len(store.sent)
    store.down = True
    with pytest.raises(RoomError) as refused:
        await actor.call(Join("bob", "Bob", "player"))
    assert refused.value.code == "unavailable"
    after = facts(room)
    # All but the version is back: it stays ahead of anything the failed save may have sent.
    assert after[2:] == before[2:] and after[0] is before[0]
    assert room.version == before[1] + 1
    assert len(store.sent) == sent  # nothing of the undone change went out
    store.down = False
    assert await actor.call(Join("bob", "Bob", "player")) == 1
    assert store.saved[-1] == before[1] + 2
    await actor.stop()


async def test_a_command_that_fails_halfway_leaves_nothing_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store()
    actor, room = await playing_room(store)
    await actor.stop()  # no bot moves meanwhile: this test drives the room itself
    actor = RoomActor(room, clock, store.commit)
    while room.game.to_act(room.state) != [0]:
        room.tick(max(clock(), room.next_wakeup() or 0))
    action = room.game.legal_actions(room.state, 0)[0]
    before = facts(room)

    def broken(state: Any) -> Any:
        raise RuntimeError("outcome failed")

    # The action is applied and logged, then the step after it raises.
    monkeypatch.setattr(room.game, "outcome", broken)
    with pytest.raises(RoomError) as refused:
        await actor.call(Act("ana", 0, action))
    assert refused.value.code == "internal_error"
    assert facts(room) == before
    monkeypatch.undo()
    await actor.call(Act("ana", 0, action))
    assert len(room.action_log) == before[4] + 1


async def test_timers_wait_while_the_store_is_down_and_go_on_by_themselves() -> None:
    store = Store()
    actor, room = await playing_room(store)
    store.down = True
    await asyncio.sleep(0.3)
    log_length = len(room.action_log)
    failures = actor.failures
    await asyncio.sleep(1.0)
    # Nothing is applied that cannot be saved, and the retries back off.
    assert len(room.action_log) == log_length
    assert actor.failures - failures <= 4
    store.down = False
    saved = len(store.saved)
    async with asyncio.timeout(10):
        while len(store.saved) == saved:
            if room.game.to_act(room.state) == [0]:  # Ana's turn: she plays
                await actor.call(Act("ana", 0, room.game.legal_actions(room.state, 0)[0]))
            await asyncio.sleep(0.05)
    assert actor.failures == 0
    await actor.stop()
