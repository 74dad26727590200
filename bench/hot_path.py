"""What one action costs inside the server, without sockets: the hot path alone.

    python -m bench.hot_path [--game basic_rummy|remmi_demmi] [--rooms 50]
                             [--actions 20000] [--wire] [--profile FILE]

Runs the real gateway (:class:`app.gateway.Connection`), room registry, room
actors, journal and in-process broker in this process, with rooms like
``bench.load``'s: Basic Rummy seating 4 players and 2 spectators (the turn
shape), or Remmi Demmi with 6 traders whose timer runs (the realtime shape).
Each connection's direct frame path is a stand-in that corks and counts the
bytes a socket would be sent, flushed after each message as a server's
connection does, so what is measured is everything kartu does between a
frame read and its frames handed to the sockets: parse, validate, apply,
views, save, serialize, fan out. Players make ``bench.loadgen.quick_move``'s
moves, and traders offer ``bench.loadgen.quick_offer``'s, one seat after the
other; picking them is left out of the timing.

With ``--wire`` every connection is kartu's WebSocket protocol
(:class:`app.wsprotocol.KartuWebSocketProtocol`) on a transport in memory
(:class:`MemoryTransport`), served the way ``python -m app`` serves a socket:
the upgrade, frames parsed, the ASGI app, corking and the one write per
connection and loop turn are measured too; only the kernel is left out. A
message counts from its masked frame handed to the protocol to its sender's
answer written.

It prints the microseconds per action (median of ``--rounds`` rounds) and,
in the same run, the cost of the parts that need nothing of kartu (the
socket-free floor: JSON of one view per audience and the frames' bytes), as
a figure to hold the rest against. With ``--profile`` it writes cProfile's
statistics of one more round (slower, but exact call counts).

Timing is ``time.process_time``: CPU of this process only, so a busy
neighbour moves it less than wall-clock time. The garbage collector is set
up as the served app sets it (:func:`app.collector.tune`, once the rooms are
made): what a pass would cost is not what an action costs in a server.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import random
import statistics
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import orjson
from starlette.websockets import WebSocket
from uvicorn.config import Config
from uvicorn.server import ServerState

from app import collector
from app.broker import MemoryBroker
from app.gateway import Connection, serve_socket
from app.rooms import RoomRegistry
from app.settings import Settings
from app.snapshots import JournalSnapshots
from app.store import PlayerRecord, Store
from app.wsprotocol import (
    EXTENSION,
    FramePath,
    KartuWebSocketProtocol,
    Receiver,
    loop_flusher,
    wire,
)
from bench.loadgen import TRADE_OPTIONS, quick_move, quick_offer
from engine.games import find_game

# Per game: players and spectators per room, and the room's options.
TABLES: dict[str, tuple[int, int, dict[str, Any]]] = {
    "basic_rummy": (4, 2, {"turn_clock_s": 0}),
    "remmi_demmi": (6, 0, TRADE_OPTIONS),
}


class _Path(FramePath):
    """A direct frame path that counts what a socket would have been sent."""

    __slots__ = ("sent",)

    def __init__(self) -> None:
        self.sent = 0

    def send_wire(self, data: bytes | memoryview, limit: int) -> bool:
        self.sent += len(data)
        return True

    def receiver(self, limit: int, too_slow: Callable[[], None]) -> Receiver:
        # What the feeds cork on, as on a socket (app.wsprotocol.cork_all).
        return Receiver(_Protocol(self), limit, too_slow)  # type: ignore[arg-type]

    def limit_writes(self, stall_s: float, socket_buffer: int) -> None:
        pass  # no socket

    def flush_all(self) -> None:
        # As FramePath.flush_all: what every connection of the loop has corked.
        loop_flusher(asyncio.get_running_loop()).flush()


class _Protocol:
    """The part of a socket's protocol that corking reads and writes."""

    def __init__(self, path: _Path) -> None:
        self.path = path
        self.corked_bytes = 0
        # The loop's own flusher: it flushes these as it would sockets.
        self.flusher = loop_flusher(asyncio.get_running_loop())

    def send_corked(self, data: bytes | memoryview, limit: int) -> bool:
        if not self.corked_bytes:
            self.flusher.add(self)  # type: ignore[arg-type]
        self.corked_bytes += len(data)
        return True

    def flush(self) -> None:
        self.path.sent += self.corked_bytes
        self.corked_bytes = 0


class _Socket:
    """Just what :class:`Connection` reads of its WebSocket."""

    def __init__(self) -> None:
        self.path = _Path()
        self.scope = {"extensions": {EXTENSION: self.path}}


class Direct:
    """A client on the gateway itself: a :class:`Connection` on a stand-in socket."""

    def __init__(self, bench: Bench, player: PlayerRecord | None) -> None:
        self.conn = Connection(_Socket(), player, bench.settings,  # type: ignore[arg-type]
                               bench.registry, bench.feeds)

    @property
    def sent(self) -> int:
        assert isinstance(self.conn.path, _Path)
        return self.conn.path.sent

    async def send(self, text: str) -> None:
        """One message, as Connection.serve handles it: dispatched, then what
        it corked written out, then the loop's turn for what it left."""
        await self.conn._dispatch(text)
        assert self.conn.path is not None
        self.conn.path.flush_all()
        await asyncio.sleep(0)

    async def close(self) -> None:
        await self.conn._leave_all()


class MemoryTransport(asyncio.Transport):
    """A socket's transport that takes every write at once and counts it."""

    def __init__(self) -> None:
        super().__init__()
        self.sent = 0
        self.writes = 0
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.sent += len(data)
        self.writes += 1

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 40000)}.get(
            name, default)

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def masked(text: str) -> bytes:
    """``text`` as a client's final text frame, masked with a key of zeros
    (any key is a valid mask, and this one leaves the payload as it is)."""
    payload = text.encode()
    if len(payload) < 126:
        head = struct.pack(">BB", 0x81, 0x80 | len(payload))
    else:
        head = struct.pack(">BBH", 0x81, 0x80 | 126, len(payload))
    return head + b"\0\0\0\0" + payload


UPGRADE = ("GET /ws?p={player} HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nUpgrade: websocket\r\n"
           "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
           "Sec-WebSocket-Version: 13\r\n\r\n")


class Wire:
    """A client on kartu's WebSocket protocol, on a transport in memory."""

    def __init__(self, bench: Bench, player: PlayerRecord | None) -> None:
        self.transport = MemoryTransport()
        self.protocol = KartuWebSocketProtocol(bench.config, bench.server_state, {})
        bench.by_id[player.id if player else ""] = player
        self.upgrade = UPGRADE.format(player=player.id if player else "").encode()

    @property
    def sent(self) -> int:
        return self.transport.sent

    async def open(self) -> None:
        self.protocol.connection_made(self.transport)
        await self.deliver(self.upgrade)

    async def deliver(self, data: bytes) -> None:
        """Hands ``data`` to the protocol, then runs the loop until the server
        wrote its answer, and one turn more for what that left."""
        writes = self.transport.writes
        self.protocol.data_received(data)
        while self.transport.writes == writes:
            await asyncio.sleep(0)
        await asyncio.sleep(0)

    async def send(self, text: str) -> None:
        await self.deliver(masked(text))

    async def close(self) -> None:
        self.transport.closing = True
        self.protocol.connection_lost(None)
        for _ in range(50):  # the app hears the disconnect and leaves its rooms
            await asyncio.sleep(0)


class Bench:
    def __init__(self, directory: str, game: str, rooms: int, *, wire: bool = False) -> None:
        self.settings = Settings(database_url=f"sqlite+aiosqlite:///{directory}/kartu.db",
                                 flood_rate=1e9, flood_refuse_level=1e9, flood_close_level=1e9)
        self.store = Store(self.settings.database_url)
        self.broker = MemoryBroker()
        self.journal = JournalSnapshots(f"{directory}/kartu.rooms.journal")
        self.registry = RoomRegistry(self.settings, self.broker, self.store, self.journal)
        # Full snapshots by the entries alone, as a loaded server takes them
        # (a room sees 200 entries well within the minute of the backstop):
        # under valgrind, fifty times slower, the minute would pass every few
        # thousand actions, and the count would depend on how long a run took.
        self.registry.SNAPSHOT_EVERY_MS = 2**62
        self.feeds = self.registry.feeds
        self.game = game
        self.players, self.spectators, self.options = TABLES[game]
        self.room_count = rooms
        # Per room: its id and the players' connections, in seat order.
        self.tables: list[tuple[str, list[Direct | Wire]]] = []
        self.refs = 0
        self.actions = 0  # actions picked so far: the next trader is chosen by it
        self.rng = random.Random(7)
        self.wire = wire
        # --wire: the players by the id in their upgrade's query, for the ASGI app.
        self.by_id: dict[str, PlayerRecord | None] = {}
        self.server_state = ServerState()
        self.config = Config(self.serve, ws_max_size=65_536, ws_per_message_deflate=False,
                             ws_ping_interval=None, log_level="warning", interface="asgi3")

    async def serve(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """The ASGI app of --wire: the gateway, as app.main serves ``/ws``."""
        player_id = parse_qs(scope["query_string"].decode()).get("p", [""])[0]
        player = self.by_id.get(player_id)
        await serve_socket(WebSocket(scope, receive, send), player, False, self.settings,
                           self.registry, self.feeds)

    async def start(self) -> None:
        await self.store.start()
        await self.registry.start()
        for _ in range(self.room_count):
            self.tables.append(await self.table())
        collector.tune()

    async def table(self) -> tuple[str, list[Direct | Wire]]:
        """A new room with its players and spectators in, started (a Remmi
        Demmi room with its timer running)."""
        game = find_game(self.game)
        assert game is not None
        players = [await self.store.create_player(f"P{i}") for i in range(self.players)]
        # Seeded from the bench's own generator: the same deals in every run
        # (how often traders' offers meet, and so what an offer costs,
        # depends on the cards).
        actor = await self.registry.create(game, self.players, self.options, players[0].id,
                                           seed=self.rng.randrange(2**63))
        room_id = actor.core.room_id
        seats = [await self.connection(p) for p in players]
        for conn in seats:
            await self.send(conn, {"type": "join", "room": room_id, "role": "player"})
        for _ in range(self.spectators):
            await self.send(await self.connection(None),
                            {"type": "join", "room": room_id, "role": "spectator"})
        await self.send(seats[0], {"type": "start", "room": room_id})
        if self.game == "remmi_demmi":
            core = actor.core
            dealer = core.view_for(0, 0)["dealer"]
            await self.send(seats[dealer], {"type": "act", "room": room_id, "action": {
                "kind": "start_timer", "speed": "snail"}})
            assert core.view_for(0, 0)["stage"] == "trading"
        return room_id, seats

    async def connection(self, player: PlayerRecord | None) -> Direct | Wire:
        if not self.wire:
            return Direct(self, player)
        client = Wire(self, player)
        await client.open()
        return client

    async def send(self, conn: Direct | Wire, message: dict[str, Any]) -> None:
        self.refs += 1
        await conn.send(orjson.dumps({**message, "ref": self.refs}).decode())

    async def next_move(self, table: int) -> tuple[Direct | Wire, str]:
        """The message the next player to act sends now (not timed)."""
        self.actions += 1
        room_id, seats = self.tables[table]
        action = self.pick(room_id)
        if action is None:
            # The deal or the match is over: a new room in its place (the
            # pause between deals is the actor's timer, not an action).
            for conn in seats:
                await conn.close()
            self.tables[table] = room_id, seats = await self.table()
            action = self.pick(room_id)
            assert action is not None
        seat, move = action
        self.refs += 1
        text = orjson.dumps({"type": "act", "room": room_id, "action": move,
                             "ref": self.refs}).decode()
        return seats[seat], text

    def pick(self, room_id: str) -> tuple[int, dict[str, Any]] | None:
        """Who acts next in the room and how, or None if nobody can."""
        core = self.registry.rooms[room_id].core
        if core.status != "playing":
            return None
        if self.game == "remmi_demmi":
            for step in range(self.players):
                seat = (self.actions + step) % self.players
                offer = quick_offer(core.view_for(seat, 0), self.rng)
                if offer is not None:
                    return seat, offer
            return None
        to_act = core.game.to_act(core.state)
        if not to_act:
            return None
        return to_act[0], quick_move(core.view_for(to_act[0], 0))

    async def round(self, actions: int) -> float:
        """CPU seconds for ``actions`` actions, spread over the rooms in turn."""
        spent = 0.0
        table = 0
        for _ in range(actions):
            table = (table + 1) % len(self.tables)
            conn, text = await self.next_move(table)
            started = time.process_time()
            await conn.send(text)
            spent += time.process_time() - started
        return spent

    async def close(self) -> None:
        # --wire: the app's task of every socket still open, as a server stopping.
        tasks = list(self.server_state.tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
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
    parser.add_argument("--game", choices=sorted(TABLES), default="basic_rummy")
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--actions", type=int, default=20_000, help="per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--wire", action="store_true",
                        help="connections on kartu's WebSocket protocol, in memory")
    parser.add_argument("--profile", type=Path, help="cProfile statistics of one more round")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="kartu-hot-") as directory:
        bench = Bench(directory, args.game, args.rooms, wire=args.wire)
        await bench.start()
        try:
            await bench.round(args.actions // 4)  # warm up
            per_action = [await bench.round(args.actions) / args.actions
                          for _ in range(args.rounds)]
            room_id, _ = bench.tables[0]
            view = bench.registry.rooms[room_id].core.view_for(0, 0)
            # Spectators share one view: one audience for them all.
            floor = floor_per_action(view, bench.players + min(bench.spectators, 1))
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
