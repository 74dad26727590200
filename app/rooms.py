"""The room registry: every room this process runs, and where their changes go.

Each room is a :class:`engine.room.RoomActor` owned by exactly one process.
The registry is the :class:`engine.room.RoomSink` of its rooms: it turns
each change into frames once per audience and publishes them on the broker,
and it records the room's life in the database (created, started, finished).

Running several processes later means one more step here: a room is created
in, and commands are routed to, the process that holds its lease; the
broker already carries the frames to watchers on any process.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from typing import Any

from app.broker import Broker
from app.frames import change_messages
from app.settings import Settings
from app.store import FinishedGame, RoomRecord, Store
from engine.game import Game, Outcome
from engine.room import Change, RoomActor, RoomCore

log = logging.getLogger("kartu.rooms")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def _utc(ms: int | None) -> datetime:
    return datetime.fromtimestamp((ms or now_ms()) / 1000, UTC)


class RoomRegistry:
    def __init__(self, settings: Settings, broker: Broker, store: Store) -> None:
        self.settings = settings
        self.broker = broker
        self.store = store
        self.rooms: dict[str, RoomActor] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._statuses: dict[str, str] = {}
        self._janitor: asyncio.Task[None] | None = None
        # Called with (room, outcome) when a game ends, after it is recorded.
        self.finish_listeners: list[Callable[[RoomCore, Outcome], Awaitable[None]]] = []

    async def start(self) -> None:
        self._janitor = asyncio.get_running_loop().create_task(self._sweep_forever())

    async def close(self) -> None:
        if self._janitor is not None:
            self._janitor.cancel()
        for actor in list(self.rooms.values()):
            await actor.stop()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    # --- rooms -------------------------------------------------------------

    async def create(self, game: Game, seats: int, options: dict[str, Any],
                     owner_id: str | None, *, private: bool = False) -> RoomActor:
        """A new room, saved and running. ``options['seed']`` fixes the deals."""
        room_id = secrets.token_urlsafe(6)
        seed = options.get("seed")
        if seed is None:
            seed = secrets.randbits(63)
        core = RoomCore(room_id=room_id, game=game, options=options, seat_count=seats,
                        owner_id=owner_id, seed=seed, sink=self, created_at=now_ms(),
                        private=private)
        await self.store.save_room(RoomRecord(
            id=room_id, game=game.name, options=options, seats=seats, owner_id=owner_id,
            status=core.status, seed=seed,
        ))
        actor = RoomActor(core, now_ms)
        actor.start()
        self.rooms[room_id] = actor
        self._statuses[room_id] = core.status
        log.info("room_created", extra={"fields": {"room": room_id, "game": game.name,
                                                   "seats": seats, "owner": owner_id}})
        return actor

    def get(self, room_id: str) -> RoomActor | None:
        return self.rooms.get(room_id)

    def lobby(self) -> list[dict[str, Any]]:
        return [actor.core.summary() for actor in self.rooms.values()
                if actor.core.status in ("waiting", "playing") and not actor.core.private]

    # --- RoomSink ------------------------------------------------------------

    def changed(self, room: RoomCore, change: Change) -> None:
        for channel, message in change_messages(change):
            self.broker.publish(channel, message)
        if self._statuses.get(room.room_id) != room.status:
            self._statuses[room.room_id] = room.status
            log.info(f"room_{room.status}", extra={"fields": {"room": room.room_id,
                                                             "game": room.game.name}})
            self._background(self.store.set_room_status(room.room_id, room.status))

    def finished(self, room: RoomCore, outcome: Outcome) -> None:
        self._statuses[room.room_id] = room.status
        winners = set(outcome.winners)
        record = room.replay_record()
        log.info("room_finished", extra={"fields": {
            "room": room.room_id, "game": room.game.name, "scores": outcome.scores,
            "winners": outcome.winners, "actions": len(room.action_log)}})
        self._background(self._record_finished(room, outcome, FinishedGame(
            room_id=room.room_id, game=room.game.name, options=room.options, seed=room.seed,
            actions=record["actions"], scores=list(outcome.scores),
            seat_names=[s.name for s in room.seats],
            results=[(s.index, s.player_id, s.name or "", s.bot, outcome.scores[s.index],
                      s.index in winners) for s in room.seats],
            started_at=_utc(room.started_at), finished_at=_utc(None),
        )))

    async def _record_finished(self, room: RoomCore, outcome: Outcome,
                               finished: FinishedGame) -> None:
        await self.store.save_finished_game(finished)
        for listener in self.finish_listeners:
            await listener(room, outcome)

    def _background(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("background write failed", exc_info=task.exception())

    # --- eviction ------------------------------------------------------------

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(60)
            await self.sweep(now_ms())

    async def sweep(self, now: int) -> None:
        """Drops rooms nobody is in that have been idle too long (finished or abandoned)."""
        idle_ms = self.settings.room_idle_s * 1000
        for room_id, actor in list(self.rooms.items()):
            core = actor.core
            watched = core.spectators > 0 or any(s.connections for s in core.seats)
            if watched or now - core.last_activity < idle_ms:
                continue
            if core.status == "playing" and any(not s.bot for s in core.seats):
                continue  # a game with humans in it waits for them
            if core.status == "waiting":
                self._background(self.store.set_room_status(room_id, "abandoned"))
            await actor.stop()
            del self.rooms[room_id]
            self._statuses.pop(room_id, None)
            log.info("room_evicted", extra={"fields": {"room": room_id, "status": core.status}})
