"""Test helpers for driving a :class:`engine.room.RoomCore` with a fake clock.

Nothing here is a test: a sink that collects what the room sends out, a room
built around it, and a driver that ticks the room at each of its wake-ups.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.game import Game, Outcome
from engine.options import validate_room_options
from engine.room import Change, RoomCore


class Collect:
    """Every change a room made and every outcome it reached, read from its
    outbox (nothing takes the changes out of a room driven by a test)."""

    def __init__(self, room: RoomCore) -> None:
        self.room = room

    @property
    def changes(self) -> list[Change]:
        return self.room.outbox

    @property
    def outcomes(self) -> list[Outcome]:
        return [c.outcome for c in self.room.outbox if c.outcome is not None]

    def events(self, kind: str) -> list[dict[str, Any]]:
        """Every event of ``kind`` sent so far, in order."""
        return [e for c in self.changes for e in c.events if e["kind"] == kind]


def make_room(game: Game, seats: int, *, room_id: str, seed: int,
              **options: Any) -> tuple[RoomCore, Collect]:
    """A new room of ``game`` owned by "ana", created at time 0, and what it sent."""
    opts = validate_room_options(game, options, seats)
    room = RoomCore(room_id=room_id, game=game, options=opts, seat_count=seats, owner_id="ana",
                    seed=seed, created_at=0)
    return room, Collect(room)


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
