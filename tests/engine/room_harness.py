"""Test helpers for driving a :class:`engine.room.RoomCore` with a fake clock.

Nothing here is a test: a sink that collects what the room sends out, a room
built around it, and a driver that ticks the room at each of its wake-ups.
"""

from __future__ import annotations

import inspect
import tracemalloc
from collections.abc import Callable
from typing import Any

import engine.game as game_module
from engine.game import Game, Outcome
from engine.options import validate_room_options
from engine.room import Change, RoomCore


class Collect:
    """A room sink that keeps every change and outcome it is given."""

    def __init__(self) -> None:
        self.changes: list[Change] = []
        self.outcomes: list[Outcome] = []

    def changed(self, room: RoomCore, change: Change) -> None:
        self.changes.append(change)

    def finished(self, room: RoomCore, outcome: Outcome) -> None:
        self.outcomes.append(outcome)

    def events(self, kind: str) -> list[dict[str, Any]]:
        """Every event of ``kind`` sent so far, in order."""
        return [e for c in self.changes for e in c.events if e["kind"] == kind]


def make_room(game: Game, seats: int, *, room_id: str, seed: int,
              **options: Any) -> tuple[RoomCore, Collect]:
    """A new room of ``game`` owned by "ana", created at time 0, with its sink."""
    sink = Collect()
    opts = validate_room_options(game, options, seats)
    room = RoomCore(room_id=room_id, game=game, options=opts, seat_count=seats, owner_id="ana",
                    seed=seed, sink=sink, created_at=0)
    return room, sink


def run_until(room: RoomCore, done: Callable[[], bool], now: int, limit: int = 20_000) -> int:
    """Ticks the room at each wake-up until ``done()`` or the game ends; the time reached."""
    for _ in range(limit):
        if done() or room.status != "playing":
            break
        wakeup = room.next_wakeup()
        assert wakeup is not None, "the room went to sleep"
        now = max(now, wakeup)
        room.tick(now)
    return now


def kept_json_blocks(run: Callable[[], Any]) -> tuple[int, int]:
    """How many blocks :func:`engine.game.kept_json` made during ``run`` are
    still alive after it, and their bytes in all (tracemalloc's count)."""
    source, first = inspect.getsourcelines(game_module.kept_json)
    lines = range(first, first + len(source))
    tracemalloc.start()
    try:
        run()
        snapshot = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    kept = [stat for stat in snapshot.statistics("lineno")
            if stat.traceback[0].filename == game_module.__file__
            and stat.traceback[0].lineno in lines]
    return sum(stat.count for stat in kept), sum(stat.size for stat in kept)
