"""What one action costs inside the server, without sockets: the hot path alone.

    python -m bench.hot_path [--rooms 50] [--actions 20000] [--profile FILE]

Runs the real gateway (:class:`app.gateway.Connection`), room registry, room
actors, journal and in-process broker in this process, with rooms of Basic
Rummy seating 4 players and 2 spectators like ``bench.load --shape turn``.
Each connection's direct frame path is a stand-in that keeps the bytes it is
given, so what is measured is everything kartu does between a frame read and
its frames handed to the sockets: parse, validate, apply, views, save,
serialize, fan out. Players make ``bench.loadgen.quick_move``'s moves; picking
them is left out of the timing.

It prints the microseconds per action (median of ``--rounds`` rounds) and,
in the same run, the cost of the parts that need nothing of kartu (the
socket-free floor: JSON of one view per audience and the frames' bytes), as
a figure to hold the rest against. With ``--profile`` it writes cProfile's
statistics of one more round (slower, but exact call counts).

Timing is ``time.process_time``: CPU of this process only, so a busy
neighbour moves it less than wall-clock time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from app.broker import MemoryBroker
from app.feeds import Feeds
from app.gateway import Connection
from app.rooms import RoomRegistry
from app.settings import Settings
from app.snapshots import JournalSnapshots
from app.store import PlayerRecord, Store
from app.wsprotocol import EXTENSION, FramePath, wire
from bench.loadgen import quick_move
from engine.games import find_game

PLAYERS, SPECTATORS = 4, 2


class _Path(FramePath):
    """A direct frame path into a list (what a socket would have been sent)."""

    __slots__ = ("sent",)

    def __init__(self) -> None:
        self.sent = 0

    def send_wire(self, data: bytes | memoryview, limit: int) -> bool:
        self.sent += len(data)
        return True

    def flush_all(self) -> None:
        return None


class _Socket:
    """Just what :class:`Connection` reads of its WebSocket."""

    def __init__(self) -> None:
        self.path = _Path()
        self.scope = {"extensions": {EXTENSION: self.path}}


class Bench:
    def __init__(self, directory: str, rooms: int) -> None:
        self.settings = Settings(database_url=f"sqlite+aiosqlite:///{directory}/kartu.db",
                                 flood_rate=1e9, flood_refuse_level=1e9, flood_close_level=1e9)
        self.store = Store(self.settings.database_url)
        self.broker = MemoryBroker()
        self.feeds = Feeds(self.broker)
        self.journal = JournalSnapshots(f"{directory}/kartu.rooms.journal")
        self.registry = RoomRegistry(self.settings, self.broker, self.store, self.journal)
        self.room_count = rooms
        # Per room: its id and the four players' connections, in seat order.
        self.tables: list[tuple[str, list[Connection]]] = []
        self.refs = 0

    async def start(self) -> None:
        await self.store.start()
        await self.registry.start()
        for _ in range(self.room_count):
            self.tables.append(await self.table())

    async def table(self) -> tuple[str, list[Connection]]:
        """A new room of Basic Rummy with its players and spectators in, started."""
        game = find_game("basic_rummy")
        assert game is not None
        players = [await self.store.create_player(f"P{i}") for i in range(PLAYERS)]
        actor = await self.registry.create(game, PLAYERS, {"turn_clock_s": 0}, players[0].id)
        room_id = actor.core.room_id
        seats = [self.connection(p) for p in players]
        for conn in seats:
            await self.send(conn, {"type": "join", "room": room_id, "role": "player"})
        for _ in range(SPECTATORS):
            await self.send(self.connection(None),
                            {"type": "join", "room": room_id, "role": "spectator"})
        await self.send(seats[0], {"type": "start", "room": room_id})
        return room_id, seats

    def connection(self, player: PlayerRecord | None) -> Connection:
        return Connection(_Socket(), player, self.settings, self.registry,  # type: ignore[arg-type]
                          self.feeds)

    async def send(self, conn: Connection, message: dict[str, Any]) -> None:
        self.refs += 1
        await conn._dispatch(orjson.dumps({**message, "ref": self.refs}).decode())

    async def next_move(self, table: int) -> tuple[Connection, str]:
        """The message the player to move sends now (not timed)."""
        room_id, seats = self.tables[table]
        core = self.registry.rooms[room_id].core
        if core.status != "playing" or not core.game.to_act(core.state):
            # The deal or the match is over: a new room in its place (the
            # pause between deals is the actor's timer, not an action).
            for conn in seats:
                await conn._leave_all()
            self.tables[table] = room_id, seats = await self.table()
            core = self.registry.rooms[room_id].core
        seat = core.game.to_act(core.state)[0]
        self.refs += 1
        action = quick_move(core.view_for(seat, 0))
        text = orjson.dumps({"type": "act", "room": room_id, "action": action,
                             "ref": self.refs}).decode()
        return seats[seat], text

    async def round(self, actions: int) -> float:
        """CPU seconds for ``actions`` actions, spread over the rooms in turn."""
        spent = 0.0
        table = 0
        for _ in range(actions):
            table = (table + 1) % len(self.tables)
            conn, text = await self.next_move(table)
            started = time.process_time()
            await conn._dispatch(text)
            spent += time.process_time() - started
        return spent

    async def close(self) -> None:
        await self.registry.close()
        await self.broker.close()
        await self.store.close()


def floor_per_action(view: dict[str, Any], audiences: int, rounds: int = 2000) -> float:
    """CPU seconds per action of the socket-free floor: one JSON per audience, framed."""
    started = time.process_time()
    for n in range(rounds):
        for _ in range(audiences):
            wire(orjson.dumps({"type": "state", "room": "r", "version": n, "view": view}))
        wire(orjson.dumps({"type": "ack", "ref": n}))
    return (time.process_time() - started) / rounds


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--actions", type=int, default=20_000, help="per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", type=Path, help="cProfile statistics of one more round")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kartu-hot-") as directory:
        bench = Bench(directory, args.rooms)
        await bench.start()
        try:
            await bench.round(args.actions // 4)  # warm up
            per_action = [await bench.round(args.actions) / args.actions
                          for _ in range(args.rounds)]
            room_id, _ = bench.tables[0]
            view = bench.registry.rooms[room_id].core.view_for(0, 0)
            floor = floor_per_action(view, PLAYERS + 1)
            if args.profile is not None:
                profiler = cProfile.Profile()
                profiler.enable()
                await bench.round(args.actions)
                profiler.disable()
                profiler.dump_stats(args.profile)
                pstats.Stats(str(args.profile), stream=sys.stdout).sort_stats(
                    "tottime").print_stats(25)
        finally:
            await bench.close()
    median = statistics.median(per_action)
    print(f"kartu hot path   {median * 1e6:7.1f} us per action  "
          f"(rounds: {', '.join(f'{p * 1e6:.1f}' for p in per_action)})")
    print(f"socket-free floor {floor * 1e6:6.1f} us per action  "
          f"(one state JSON per audience and an ack, framed)")
    print(f"ratio            {median / floor:7.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
