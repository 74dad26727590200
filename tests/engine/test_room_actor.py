"""The room actor: one command at a time, whichever task applies it, and its timers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from engine.bots.basic_rummy import choose
from engine.room import Act, AddBot, Change, Join, RoomActor, RoomCore, RoomError, Snapshot, Start
from tests.engine import room_harness
from tests.games import known_game
from tests.waiting import wait_for

GAME = known_game("basic_rummy")


def clock() -> int:
    return time.time_ns() // 1_000_000


class HeldSave:
    """A commit that holds the first save ``held(core, changes)`` picks until
    the test lets it land (``saving`` is set while it waits, ``saved`` lets it
    go); every save's room version, in order, is in ``versions``."""

    def __init__(self, held: Callable[[RoomCore, list[Change]], bool]) -> None:
        self.held = held
        self.saving = asyncio.Event()
        self.saved = asyncio.Event()
        self.versions: list[int] = []

    async def __call__(self, core: RoomCore, changes: list[Change], tag: object) -> bool:
        if not self.saving.is_set() and self.held(core, changes):
            self.saving.set()
            await self.saved.wait()
        self.versions.append(core.version)
        return True


async def test_overlapping_calls_are_applied_and_committed_one_at_a_time() -> None:
    room, _ = room_harness.make_room(GAME, 6, room_id="r1", seed=3)
    inside = 0
    most = 0
    versions: list[int] = []

    async def commit(core: RoomCore, changes: list[Change], tag: object) -> bool:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        # The thing under test, so a real sleep: a save that takes a while and
        # gives the loop up, so that the other callers come in meanwhile.
        await asyncio.sleep(0.002)
        versions.append(core.version)
        inside -= 1
        return True

    actor = RoomActor(room, clock, commit)
    actor.start()
    seats = await asyncio.gather(*(actor.call(Join(f"p{i}", f"P{i}", "player"))
                                   for i in range(6)))
    assert sorted(seats) == list(range(6))
    assert most == 1  # the first call ran in its caller's task, the rest queued
    assert versions == sorted(versions) and len(versions) == 6
    await actor.stop()


async def test_a_command_applied_in_the_callers_task_still_wakes_the_bots() -> None:
    room, _ = room_harness.make_room(GAME, 2, room_id="r2", seed=5, bot_delay_ms=1,
                                     turn_clock_s=0, deals=1)
    actor = RoomActor(room, clock)
    actor.start()
    await actor.call(Join("ana", "Ana", "player"))
    await actor.call(AddBot("ana"))
    await actor.call(Start("ana"))  # if the bot deals first, its move is due now

    async def anas_turn_or_the_end() -> dict[str, Any] | None:
        _, view = await actor.call(Snapshot(0))
        return view if view["phase"] != "playing" or view["turn"] == 0 else None

    async with asyncio.timeout(10):
        for _ in range(6):  # Ana's turns; the bot answers each one on its own timer
            while True:
                view = await wait_for(anas_turn_or_the_end, timeout=10, interval=0.001)
                if view["phase"] != "playing":
                    break
                action = choose(view)
                assert action is not None  # Ana's turn: the bot has a move for her
                await actor.call(Act("ana", 0, action))
                if view["step"] == "play":
                    break
    bot_moves = [entry for entry in room.action_log if entry.get("bot")]
    assert len(bot_moves) >= 10
    await actor.stop()


async def test_retiring_waits_for_the_command_being_saved_and_looks_again() -> None:
    room, _ = room_harness.make_room(GAME, 2, room_id="r3", seed=7)
    commit = HeldSave(lambda core, changes: bool(changes))  # the join's save
    actor = RoomActor(room, clock, commit)
    actor.start()
    join = asyncio.create_task(actor.call(Join("ana", "Ana", "player")))
    await commit.saving.wait()
    nobody = asyncio.create_task(actor.retire(lambda core: core.seats_taken == 0))
    await asyncio.sleep(0)
    assert not nobody.done()  # it waits for the join, which is still being saved
    commit.saved.set()
    assert await join == 0
    assert await nobody is False  # looked again: Ana is in, the room stays
    assert not actor.stopped and room.status == "waiting"

    assert await actor.retire(lambda core: True)
    assert actor.stopped and room.status == "abandoned"
    with pytest.raises(RoomError) as refused:
        await actor.call(Join("bo", "Bo", "player"))
    assert refused.value.code == "moved"


async def test_a_command_waits_for_the_rooms_first_save() -> None:
    room, _ = room_harness.make_room(GAME, 2, room_id="r4", seed=9)
    commit = HeldSave(lambda core, changes: True)  # the first save
    actor = RoomActor(room, clock, commit)
    actor.start()
    created = room.version
    first = asyncio.create_task(actor.save())
    await commit.saving.wait()
    join = asyncio.create_task(actor.call(Join("ana", "Ana", "player")))
    await asyncio.sleep(0)
    assert not join.done() and room.seats_taken == 0  # not applied beside the save
    commit.saved.set()
    assert await first and await join == 0
    assert commit.versions == [created, room.version]
    await actor.stop()


async def test_a_first_save_the_room_no_longer_takes_stops_the_actor() -> None:
    room, _ = room_harness.make_room(GAME, 2, room_id="r6", seed=13)
    actor = RoomActor(room, clock, lambda core, changes, tag: _false())
    actor.start()
    running = asyncio.all_tasks() - {asyncio.current_task()}
    assert running  # the actor's task
    assert not await actor.save()
    assert actor.stopped and not running & asyncio.all_tasks()  # its task has ended
    with pytest.raises(RoomError) as refused:
        await actor.call(Join("ana", "Ana", "player"))
    assert refused.value.code == "moved" and room.seats_taken == 0


async def _false() -> bool:
    return False


async def test_a_command_arriving_during_the_last_save_is_told_the_room_moved() -> None:
    room, _ = room_harness.make_room(GAME, 2, room_id="r5", seed=11)
    commit = HeldSave(lambda core, changes: core.status == "abandoned")  # the last save
    actor = RoomActor(room, clock, commit)
    actor.start()
    retiring = asyncio.create_task(actor.retire(lambda core: True))
    await commit.saving.wait()
    join = asyncio.create_task(actor.call(Join("ana", "Ana", "player")))
    for _ in range(3):  # the actor's task takes the join out of the queue
        await asyncio.sleep(0)
    commit.saved.set()
    assert await retiring
    async with asyncio.timeout(5):  # answered, never left waiting
        with pytest.raises(RoomError) as refused:
            await join
    assert refused.value.code == "moved" and room.seats_taken == 0
